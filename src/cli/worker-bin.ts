#!/usr/bin/env node
import { main } from './run.js';

// `syntheo-worker [options]` is `syntheo worker [options]`.
process.exitCode = await main(['worker', ...process.argv.slice(2)]);
