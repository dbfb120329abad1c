/** Roles a credential can carry. `connector` is used by connector runs. */
export const ROLES = ['owner', 'maintainer', 'member', 'connector', 'agent', 'reader'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Standing rank of a role (design §3): owner > maintainer > member = connector > agent > reader.
 * Ranks are spaced by 10 so that text cues (hedges, hearsay) can lower a statement's standing
 * inside its author's band without the rank ever exceeding the author's own.
 */
export const ROLE_STANDING: Readonly<Record<Role, number>> = Object.freeze({
  owner: 50,
  maintainer: 40,
  member: 30,
  connector: 30,
  agent: 20,
  reader: 10,
});

/** Roles allowed to append episodes. */
export function canWrite(role: Role): boolean {
  return role !== 'reader';
}

export function atLeast(role: Role, minimum: Role): boolean {
  return ROLE_STANDING[role] >= ROLE_STANDING[minimum];
}

/** The role with its article, for a sentence: "an agent", "a reader". */
export function aRole(role: Role): string {
  return `${/^[aeiou]/.test(role) ? 'an' : 'a'} ${role}`;
}
