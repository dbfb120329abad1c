import { describe, expect, it } from 'vitest';
import { decisionOf, RememberArgs, rememberEpisode, rememberKey } from './remember.js';

const args = (input: Record<string, unknown>) => RememberArgs.parse(input);

describe('remember: the episode and its key', () => {
  it('derives the key from the arguments and the writer: same arguments in any order from one writer, same key; another writer, another', () => {
    const a = args({ subject: 's', predicate: 'deploy day', value: 'Tuesday', qualifiers: { env: 'staging', region: 'eu' } });
    const b = args({ qualifiers: { region: 'eu', env: 'staging' }, value: 'Tuesday', predicate: 'deploy day', subject: 's', scope: 'workspace' });
    expect(rememberKey(a, 'key:1')).toBe(rememberKey(b, 'key:1'));
    expect(rememberKey(a, 'key:1')).toMatch(/^remember:[0-9a-f]{64}$/);
    expect(rememberKey(args({ subject: 's', predicate: 'deploy day', value: 'Thursday' }), 'key:1')).not.toBe(rememberKey(a, 'key:1'));
    expect(rememberKey(a, 'key:2')).not.toBe(rememberKey(a, 'key:1'));
  });

  it('writes a claim episode from source mcp, or a message for free text', () => {
    const claim = rememberEpisode(args({ subject: 's', predicate: 'p', value: 3, conditions: ['c'], effective_from: '2024-05-13T00:00:00Z' }), 'key:1');
    expect(claim).toMatchObject({ source: 'mcp', kind: 'claim', scope: 'workspace', body: { claims: [{ predicate: 'p', value: 3, conditions: ['c'], effective_from: '2024-05-13T00:00:00Z' }] } });
    expect(claim).not.toHaveProperty('occurred_at');
    const message = rememberEpisode(args({ subject: 's', text: 'The staging deploy runs on Tuesday', scope: 'personal' }), 'key:1');
    expect(message).toMatchObject({ source: 'mcp', kind: 'message', scope: 'personal', body: { text: 'The staging deploy runs on Tuesday' } });
  });

  it('refuses a call that is neither a claim nor text', () => {
    expect(() => rememberEpisode(args({ subject: 's' }), 'key:1')).toThrow(/predicate and a value, or text/);
    expect(() => rememberEpisode(args({ subject: 's', predicate: 'p' }), 'key:1')).toThrow(/needs a value/);
    expect(() => rememberEpisode(args({ subject: 's', text: 't', value: 1 }), 'key:1')).toThrow(/give its predicate/);
  });
});

describe('remember: the decision', () => {
  it.each([
    ['supports', 'created'],
    ['duplicate_of', 'duplicate'],
    ['enriches', 'enriched'],
    ['changes', 'superseded'],
    ['corrects', 'superseded'],
    ['settles', 'settled'],
    ['disputes', 'conflicted'],
    ['overruled', 'overruled'],
    ['superseded_by', 'historical'],
    ['retracts', 'retracted'],
    ['no_effect', 'no_effect'],
  ] as const)('a new claim that %s is %s', (kind, decision) => {
    expect(decisionOf(kind, 'created')).toBe(decision);
  });

  it('a value that takes effect later is scheduled, replacing nothing yet; other decisions are as said', () => {
    expect(decisionOf('changes', 'created', true)).toBe('scheduled');
    expect(decisionOf('supports', 'created', true)).toBe('scheduled');
    expect(decisionOf('overruled', 'created', true)).toBe('overruled');
    expect(decisionOf('changes', 'duplicate', true)).toBe('duplicate');
  });

  it('an episode already in the log is a duplicate whatever its decision', () => {
    expect(decisionOf('disputes', 'duplicate')).toBe('duplicate');
    expect(decisionOf('supports', 'duplicate')).toBe('duplicate');
  });
});
