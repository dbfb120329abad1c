import type { ClaimInput } from '@canon/core';

/** The dependency sections of a package.json that become `dependency` claims. */
export const DEPENDENCY_SECTIONS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;
export type DependencySection = (typeof DEPENDENCY_SECTIONS)[number];

/** What a package.json says, reduced to the fields this connector maps. */
export interface PackageFacts {
  name: string | null;
  version: string | null;
  /** section → dependency name → version range */
  dependencies: Partial<Record<DependencySection, Record<string, string>>>;
}

export const EMPTY_PACKAGE: PackageFacts = Object.freeze({ name: null, version: null, dependencies: {} });

/** Parses package.json text; null when it is not a JSON object (the commit's file is skipped). */
export function parsePackageJson(text: string): PackageFacts | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const obj = raw as Record<string, unknown>;
  const dependencies: PackageFacts['dependencies'] = {};
  for (const section of DEPENDENCY_SECTIONS) {
    const deps = obj[section];
    if (typeof deps !== 'object' || deps === null || Array.isArray(deps)) continue;
    const ranges: Record<string, string> = {};
    for (const [name, range] of Object.entries(deps as Record<string, unknown>)) {
      // A non-string range is not a valid package.json; it names no version to remember.
      if (typeof range === 'string' && name.length > 0) ranges[name] = range;
    }
    dependencies[section] = ranges;
  }
  return {
    name: typeof obj['name'] === 'string' && obj['name'] !== '' ? obj['name'] : null,
    version: typeof obj['version'] === 'string' && obj['version'] !== '' ? obj['version'] : null,
    dependencies,
  };
}

/**
 * The claims that turn `before` into `after` for the package.json at `path` ("package.json" at
 * the root): added or bumped → assert the new range, removed → retract the old one. Unchanged
 * entries give nothing: the git connector emits changes, not snapshots (design §6).
 */
export function diffPackage(path: string, before: PackageFacts, after: PackageFacts, effectiveFrom: string): ClaimInput[] {
  const claims: ClaimInput[] = [];
  const where: Record<string, string> = path === 'package.json' ? {} : { path };
  const scalar = (predicate: string, old: string | null, next: string | null) => {
    if (old === next) return;
    const qualifiers = path === 'package.json' ? {} : { qualifiers: { ...where } };
    if (next !== null) claims.push({ predicate, value: next, ...qualifiers, op: 'assert', effective_from: effectiveFrom });
    else claims.push({ predicate, value: old, ...qualifiers, op: 'retract', effective_from: effectiveFrom });
  };
  scalar('package_name', before.name, after.name);
  scalar('package_version', before.version, after.version);
  for (const section of DEPENDENCY_SECTIONS) {
    const old = before.dependencies[section] ?? {};
    const next = after.dependencies[section] ?? {};
    const names = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
    for (const name of names) {
      const from = old[name];
      const to = next[name];
      if (from === to) continue;
      const qualifiers: Record<string, string> = { manager: 'npm', section, name, ...where };
      if (to !== undefined) {
        claims.push({ predicate: 'dependency', value: to, qualifiers, op: 'assert', effective_from: effectiveFrom });
      } else {
        claims.push({ predicate: 'dependency', value: from, qualifiers, op: 'retract', effective_from: effectiveFrom });
      }
    }
  }
  return claims;
}
