// The seeded generator lives with the bench scripts (bench/seeded.ts), which draw random questions too.
export { seeded } from '../../bench/seeded.js';
