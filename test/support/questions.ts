// The random questions live with the bench scripts (bench/questions-drawn.ts: `node dist/bench/questions.js` times them).
export { drawer, vocabulary, type Vocabulary } from '../../bench/questions-drawn.js';
