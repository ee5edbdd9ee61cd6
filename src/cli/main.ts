#!/usr/bin/env node
import { main } from './run.js';

// exitCode, not exit(): stdout drains first, so large --json output piped elsewhere is never cut.
process.exitCode = await main(process.argv.slice(2));
