import type { Variables } from '@modelcontextprotocol/server';
import type { Store } from '../../db/store.js';

/** One resource template: read() returns the text of the resource at a matched URI (this module family loads with the first resources/* request). */
export interface ResourceDefinition {
  readonly name: string;
  readonly uriTemplate: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
  read(store: Store, variables: Variables): Promise<string>;
}

/** A template variable as one string (the last one if a client repeated it). */
export function variable(variables: Variables, name: string): string | undefined {
  const value = variables[name];
  return Array.isArray(value) ? value.at(-1) : value;
}

export const meetingUri = (id: string): string => `syntheo://meetings/${encodeURIComponent(id)}`;
