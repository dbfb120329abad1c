const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string is a UUID as the database writes one (any version, either case). */
export function isUuid(s: string): boolean {
  return UUID.test(s);
}
