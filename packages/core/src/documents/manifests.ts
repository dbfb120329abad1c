import type { Json } from '../normalize.js';
import { keyPathString, type KeyPath } from './key-path.js';
import type { DocumentFact } from './statement.js';

function fact(path: KeyPath, value: Json, text: string): DocumentFact {
  return { predicate: keyPathString(path), qualifiers: {}, value, text: text.trim() };
}

/**
 * A PEP 508 requirement (`requests[socks]>=2.31; python_version>"3.8"`) as (name, rest): the name
 * as written, the version specifier (and marker) as its value, `*` when none is given.
 */
export function requirement(line: string): { name: string; spec: string } | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)$/.exec(line);
  if (!m) return null;
  const spec = m[2]!.replace(/\s+/g, ' ').trim();
  return { name: m[1]!, spec: spec === '' ? '*' : spec };
}

/**
 * requirements.txt: one fact per requirement, keyed by the package name. Options (`-r`, `-e`,
 * `--index-url`), URLs and comments state no dependency version and are left as text.
 */
export function requirementsFacts(text: string): DocumentFact[] {
  const facts: DocumentFact[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').replace(/\\\n/g, ' ').split('\n')) {
    const line = raw.replace(/(?:^|\s)#.*$/, '').trim();
    if (line === '' || line.startsWith('-') || /^\w+:\/\//.test(line) || line.includes(' @ ')) continue;
    const req = requirement(line);
    if (req) facts.push(fact([req.name], req.spec, raw));
  }
  return facts;
}

/**
 * go.mod: `module`, `go`, `toolchain`, and each `require` / `replace` / `exclude` / `retract`
 * line, in a block or not, keyed by the module path (`require["golang.org/x/text"] = v0.14.0`).
 */
export function goModFacts(text: string): DocumentFact[] {
  const facts: DocumentFact[] = [];
  let block: string | null = null;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    if (block !== null) {
      if (line === ')') block = null;
      else directive(block, line, raw);
      continue;
    }
    const m = /^(\w+)\s+(.*)$/.exec(line);
    if (!m) continue;
    if (m[2] === '(') block = m[1]!;
    else directive(m[1]!, m[2]!, raw);
  }
  function directive(verb: string, args: string, raw: string) {
    const words = args.split(/\s+/);
    if (verb === 'module' || verb === 'go' || verb === 'toolchain') facts.push(fact([verb], words[0]!.replace(/^"|"$/g, ''), raw));
    else if (verb === 'require' || verb === 'exclude') {
      if (words.length >= 2) facts.push(fact([verb, words[0]!], words[1]!, raw));
    } else if (verb === 'replace') {
      const arrow = args.split('=>').map((s) => s.trim());
      if (arrow.length === 2) facts.push(fact([verb, arrow[0]!.split(/\s+/)[0]!], arrow[1]!, raw));
    }
  }
  return facts;
}

/**
 * Dockerfile: the base image of each stage (`FROM`, keyed by stage name, or by position when
 * there are several unnamed ones), the ports it `EXPOSE`s and its `ENV` and `ARG` defaults, per
 * stage when there are several stages. Commands (`RUN`, `COPY`, …) are steps, not facts.
 */
export function dockerfileFacts(text: string): DocumentFact[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\\\n/g, ' ').split('\n');
  const froms = lines.filter((l) => /^\s*FROM\s/i.test(l)).length;
  const facts: DocumentFact[] = [];
  let stage: Array<string | number> = [];
  let index = -1;
  for (const raw of lines) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const verb = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (verb === 'FROM') {
      index += 1;
      const words = args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const as = words.length >= 3 && words[1]!.toUpperCase() === 'AS' ? words[2]! : null;
      stage = froms > 1 ? ['stages', as ?? index] : [];
      facts.push(fact([...stage, 'FROM'], words[0] ?? '', raw));
    } else if (verb === 'EXPOSE') {
      facts.push(fact([...stage, 'EXPOSE'], args.split(/\s+/), raw));
    } else if (verb === 'ENV' || verb === 'ARG') {
      for (const [k, v] of assignments(args, verb)) facts.push(fact([...stage, verb, k], v, raw));
    }
  }
  return facts;
}

/** `ENV A=1 B="two"`, the legacy `ENV A 1`, or `ARG A` (no default: no fact). */
function assignments(args: string, verb: string): Array<[string, string]> {
  if (!args.includes('=')) {
    const m = /^(\S+)\s+(.+)$/.exec(args);
    return verb === 'ENV' && m ? [[m[1]!, m[2]!.trim()]] : [];
  }
  const out: Array<[string, string]> = [];
  for (const m of args.matchAll(/([\w.-]+)=(?:"((?:\\"|[^"])*)"|'([^']*)'|(\S*))/g)) out.push([m[1]!, m[2] ?? m[3] ?? m[4] ?? '']);
  return out;
}

/**
 * pyproject.toml after its generic walk: PEP 621 dependency lists (`project.dependencies`,
 * `project.optional-dependencies.<group>`, `build-system.requires`) become one fact per package,
 * keyed by its name, instead of one list a version bump would rewrite whole.
 */
export function pyprojectDependencies(value: unknown): { facts: DocumentFact[]; replaced: Set<string> } {
  const facts: DocumentFact[] = [];
  const replaced = new Set<string>();
  const lists: Array<[KeyPath, unknown]> = [];
  const root = (value ?? {}) as Record<string, unknown>;
  const project = (root['project'] ?? {}) as Record<string, unknown>;
  lists.push([['project', 'dependencies'], project['dependencies']]);
  for (const [group, list] of Object.entries((project['optional-dependencies'] ?? {}) as Record<string, unknown>)) {
    lists.push([['project', 'optional-dependencies', group], list]);
  }
  lists.push([['build-system', 'requires'], ((root['build-system'] ?? {}) as Record<string, unknown>)['requires']]);
  for (const [path, list] of lists) {
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) continue;
    replaced.add(keyPathString(path));
    for (const item of list as string[]) {
      const req = requirement(item);
      if (req) facts.push(fact([...path, req.name], req.spec, item));
    }
  }
  return { facts, replaced };
}
