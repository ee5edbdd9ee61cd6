import { UriTemplate, type Variables } from '@modelcontextprotocol/server';

/**
 * A URI template `scheme://literal/{var}/more{?a,b}` whose match() reads the query the way clients
 * write it: any of the query variables, all or none, in any order, among other parameters (the last
 * of a repeated one wins), and percent-decodes every value. The SDK's own match needs every query
 * variable, in template order, and leaves values encoded. resources/templates/list still shows the
 * RFC 6570 form (toString).
 */
export class QueryUriTemplate extends UriTemplate {
  private readonly pathPattern: RegExp;
  private readonly pathNames: string[] = [];
  private readonly queryNames: string[];

  constructor(template: string) {
    super(template);
    const query = template.indexOf('{?');
    if (query >= 0 && !template.endsWith('}')) throw new Error(`The query expression must end the template: ${template}`);
    const path = query < 0 ? template : template.slice(0, query);
    this.queryNames = query < 0 ? [] : template.slice(query + 2, -1).split(',').map((n) => n.trim());
    let pattern = '^';
    for (const piece of path.split(/(\{[^}]*\})/)) {
      if (!piece.startsWith('{')) {
        pattern += piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        continue;
      }
      const name = piece.slice(1, -1);
      if (!/^\w+$/.test(name)) throw new Error(`Only simple {name} expressions are supported in the path: ${template}`);
      this.pathNames.push(name);
      pattern += '([^/?#]+)';
    }
    this.pathPattern = new RegExp(`${pattern}$`);
  }

  override match(uri: string): Variables | null {
    const hash = uri.indexOf('#');
    const bare = hash < 0 ? uri : uri.slice(0, hash);
    const q = bare.indexOf('?');
    const found = this.pathPattern.exec(q < 0 ? bare : bare.slice(0, q));
    if (!found) return null;
    const variables: Variables = {};
    for (const [i, name] of this.pathNames.entries()) {
      const value = decode(found[i + 1]!);
      if (value === undefined) return null;
      variables[name] = value;
    }
    if (q >= 0 && this.queryNames.length > 0) {
      // URLSearchParams percent-decodes (and reads "+" as a space, as forms do). A repeated key: the
      // last one wins, as when a client appends an override to a URI it was given.
      const params = new URLSearchParams(bare.slice(q + 1));
      for (const name of this.queryNames) {
        const value = params.getAll(name).at(-1);
        if (value !== undefined) variables[name] = value;
      }
    }
    return variables;
  }
}

function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
