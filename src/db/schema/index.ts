export * from './enums.js';
export * from './folders.js';
export * from './series.js';
export * from './meetings.js';
export * from './transcripts.js';
export * from './proposals.js';
export * from './imports.js';
export * from './settings.js';
