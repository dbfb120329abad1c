/**
 * The source of the resolver's answers. Reserved like a connector's (design §2): the resolver
 * is asked only about pairs it has not answered, found by this source and a key computable from
 * two public fact keys, so a writer who could take such a key first would keep it from ever being
 * asked. Only the resolver's own run writes it.
 */
export const RESOLVER_SOURCE = 'resolver';
