import type * as v from 'valibot';
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { Store } from '../db/store.js';

export interface ToolContext {
  /** The client as it introduced itself (`name/version` from clientInfo), recorded as a proposal's proposed_by. */
  readonly client: string | null;
}

/**
 * One MCP tool: its schemas (Valibot; the dispatcher validates `input` once) and a thin handler that
 * calls the Store and returns the structuredContent. The Store (and with it the engine and every query
 * module) is made by the first call that needs it: every client spawns `syntheo mcp` (modern ones
 * twice), and initialize, server/discover and tools/list need the schemas only.
 */
export interface ToolDefinition<I extends v.GenericSchema = v.GenericSchema, O extends v.GenericSchema = v.GenericSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /** The text block: a compact rendering of the answer for clients that show the model `content`. */
  text(out: v.InferOutput<O>): string;
  // Method syntax on purpose: a list of tools with different schemas is then a ToolDefinition[].
  handler(store: Store, args: v.InferOutput<I>, ctx: ToolContext): v.InferOutput<O> | Promise<v.InferOutput<O>>;
}

export function defineTool<I extends v.GenericSchema, O extends v.GenericSchema>(tool: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return tool;
}

/** Reads the local database only: safe to call and to repeat. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

/** Stages something for the user (a proposal, an import job); never changes or deletes a meeting. */
export const STAGES_CHANGE: ToolAnnotations = { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false };
