import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANDIDATES_SHOWN, candidatesAround, candidatesByMemory, DOCUMENTS_KEPT, documentsOf, findCandidates, keptCandidateLists, keptCandidates, LOOSE_LIMIT, scoreShapes, shapeOf, shownCandidates, predicateWords, toldAsChange, WORD_LIMIT, type CandidateInput, type CandidateRef } from './candidates.js';
import { makeFactKey, memoryId } from './fact-key.js';
import { QUALIFIER_AXIS, stem } from './candidate-words.js';

const WS = 'ws_test';
const mem = (predicate: string, extra: { qualifiers?: Record<string, string>; scope?: 'workspace' | 'personal'; owner?: string | null; note?: string; subject?: string } = {}): CandidateInput => {
  const fact_key = makeFactKey({
    workspace_id: WS,
    scope: extra.scope ?? 'workspace',
    owner: extra.owner ?? null,
    subject: extra.subject ?? 'service:billing',
    predicate,
    qualifiers: extra.qualifiers,
  });
  return { memory_id: memoryId(WS, fact_key), fact_key, note_text: extra.note ?? null };
};
const pairsOf = (ms: CandidateInput[]) => findCandidates(ms).map((p) => [p.a, p.b].sort().join('|')).sort();
const pair = (x: CandidateInput, y: CandidateInput) => [x.memory_id, y.memory_id].sort().join('|');

describe('candidates', () => {
  const tue = mem('The staging deploy runs on {weekday}');
  const thu = mem('Staging deploys now happen on {weekday}');
  const thu2 = mem('We deploy staging every {weekday}');
  const prod = mem('The production deploy runs on {weekday}');

  it('given paraphrased templates with the same slot kinds, when searched, then each pair is a candidate with a score and reason', () => {
    const found = findCandidates([tue, thu, thu2, prod]);
    expect(found.map((p) => [p.a, p.b].sort().join('|')).sort()).toEqual([pair(tue, thu), pair(tue, thu2), pair(thu, thu2)].sort());
    for (const p of found) {
      expect(p.score).toBeGreaterThanOrEqual(0.5);
      expect(p.score).toBeLessThanOrEqual(1);
      expect(p.reason).toContain('same slots {weekday}');
    }
  });

  it("never pairs two keys one document states (a file's key paths are two facts as written); keys of two documents still pair", () => {
    const inFile = (predicate: string, ...lineages: string[]) => ({ ...mem(predicate), document_lineages: lineages });
    const pkg = 'workspace:app/package.json';
    const keys = [inFile('devDependencies.eslint', pkg), inFile('devDependencies.eslint-plugin-import', pkg), inFile('type', pkg), inFile('types', pkg)];
    // Without their document they pair, as any two wordings would.
    expect(findCandidates(keys.map((k) => ({ ...k, document_lineages: [] }))).length).toBeGreaterThanOrEqual(2);
    expect(findCandidates(keys)).toEqual([]);
    // A key a second file (or a message, which adds no document) states too is still one of this file's.
    expect(findCandidates([inFile('type', 'other/package.json', pkg), inFile('types', pkg)])).toEqual([]);
    const readme = inFile('The staging deploy runs on {weekday}', 'api:README.md');
    const runbook = inFile('Staging deploys now happen on {weekday}', 'api:docs/runbook.md');
    expect(pairsOf([readme, runbook])).toEqual([pair(readme, runbook)]);
    expect(pairsOf([readme, { ...runbook, document_lineages: ['api:README.md'] }])).toEqual([]);
    expect(pairsOf([readme, { ...runbook, document_lineages: [] }])).toEqual([pair(readme, runbook)]);
    // A set function still: the same pairs with a focus as without.
    const all = [...keys, readme, runbook];
    expect(candidatesAround(all, undefined, new Set([keys[0]!.memory_id, runbook.memory_id])).pairs).toEqual(findCandidates(all).filter((p) => [p.a, p.b].includes(keys[0]!.memory_id) || [p.a, p.b].includes(runbook.memory_id)));
  });

  it('a memory keeps the documents its claims came from, the first of them in order, resumed or not', () => {
    const c = (origin: 'document' | 'text', lineage: string) => ({ origin, lineage });
    expect(documentsOf([c('document', 'g'), c('document', 'f'), c('document', 'g')])).toEqual(['f', 'g']);
    expect(documentsOf([c('text', 'f')])).toEqual([]);
    expect(documentsOf([c('document', 'f')], ['e'])).toEqual(['e', 'f']);
    // At most DOCUMENTS_KEPT: a union of parts keeps what the whole keeps.
    const many = Array.from({ length: DOCUMENTS_KEPT * 2 }, (_, i) => c('document', `doc-${String(i).padStart(4, '0')}`));
    const whole = documentsOf(many);
    expect(whole).toHaveLength(DOCUMENTS_KEPT);
    expect(documentsOf(many.slice(50), documentsOf(many.slice(0, 50)))).toEqual(whole);
  });

  it('never pairs other slot kinds, other qualifiers, other scopes, or a qualifying word swapped', () => {
    expect(pairsOf([tue, mem('The staging deploy runs on {time}')])).toEqual([]);
    expect(pairsOf([mem('deploy day', { qualifiers: { env: 'staging' } }), mem('deploy day', { qualifiers: { env: 'production' } })])).toEqual([]);
    expect(pairsOf([tue, mem('The staging deploy runs on {weekday}', { scope: 'personal', owner: 'alice' })])).toEqual([]);
    expect(pairsOf([mem('The EU API runs {quantity}'), mem('The US API runs {quantity}')])).toEqual([]);
    expect(pairsOf([mem('Backups are kept for {quantity}'), mem('Logs are kept for {quantity}')])).toEqual([]);
  });

  it('pairs a statement with its negation as opposite: a possible contradiction whatever the values', () => {
    const [p] = findCandidates([mem('Deploys to prod are allowed on {weekday}'), mem('We no longer allow prod deploys on {weekday}')]);
    expect(p?.opposite).toBe(true);
    expect(p?.reason).toContain('one side negated');
  });

  it('pairs a statement told as a change with the fact it restates, in other words', () => {
    const [p] = findCandidates([mem('The orders service pool is {quantity} connections'), mem('Raised the orders db pool to {quantity} connections')]);
    expect(p?.reason).toContain('told as a change');
    expect(pairsOf([mem('The free trial is {quantity}'), mem('The trial period was extended to {quantity} for all new sign-ups')])).toHaveLength(1);
    expect(pairsOf([mem('Uptime checks run every {quantity}'), mem('We now run uptime probes every {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('Keep PRs under {quantity} lines'), mem('New guideline: aim for PRs under {quantity} lines')])).toHaveLength(1);
    // Without the change, a word swapped in its place is one thing for another.
    expect(pairsOf([mem('The free trial is {quantity}'), mem('The paid trial is {quantity}')])).toEqual([]);
  });

  it('does not take a plan for a change, nor for what is', () => {
    expect(pairsOf([mem('Redis in prod runs {version}'), mem('Redis in prod will be upgraded to {version}')])).toEqual([]);
    expect(pairsOf([mem('Redis in prod runs {version}'), mem('Redis in prod was upgraded to {version}')])).toHaveLength(1);
  });

  it('lets a change drop or add a qualifier, never swap one for another', () => {
    expect(pairsOf([mem('Outbound mail relays through {host}'), mem('We switched the incoming mail relay to {host}')])).toEqual([]);
    expect(pairsOf([mem('Outbound mail relays through {host}'), mem('We switched the mail relay to {host}')])).toHaveLength(1);
    expect(pairsOf([mem('The production deploy runs on {weekday}'), mem('Staging deploys moved to {weekday}')])).toEqual([]);
  });

  it('leaves out the reason given after the new value of a change', () => {
    expect(pairsOf([mem('The all-hands starts at {time}'), mem('All-hands moves to {time} to suit APAC')])).toHaveLength(1);
    expect(pairsOf([mem('The support desk opens at {time}'), mem('Support starts at {time} since the EU hire')])).toHaveLength(1);
    // Before the value, a qualifier is still a qualifier.
    expect(pairsOf([mem('The support desk opens at {time}'), mem('EU support now opens at {time}'), mem('US support opens at {time}')])).toHaveLength(1);
  });

  it('takes no word naming the subject for a difference', () => {
    const backend = { subject: 'team:backend' };
    expect(pairsOf([mem('Backend pairs on {weekday}', backend), mem('Our pairing day is {weekday}', backend)])).toHaveLength(1);
    // Of another subject, "backend" names where it runs: among facts of a kind, which one it is.
    const lunch = mem('Our lunch day is {weekday}');
    expect(pairsOf([mem('Backend pairs on {weekday}'), mem('Our pairing day is {weekday}'), lunch])).toEqual([]);
  });

  it('reads "per month" as "monthly", "at least" as a minimum and lower-case "us" as the pronoun', () => {
    expect(pairsOf([mem('The data team cloud budget is {money} per month'), mem('Finance cut our monthly cloud allowance to {money}')])).toHaveLength(1);
    expect(pairsOf([mem('The cloud budget is {money} per month'), mem('The cloud budget is {money} a year')])).toEqual([]);
    expect(pairsOf([mem('Autoscaling keeps at least {quantity} of the API'), mem('The API autoscaling no longer keeps a floor of {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('Tomas wants answers in {quoted}'), mem('Tomas asked us to reply in {quoted} instead')])).toHaveLength(1);
  });

  it('takes "re-booked", "pushed back to" and "cancelled" for changes, and meets words by stem and general synonyms', () => {
    expect(pairsOf([mem('Legal meets in room {quoted}'), mem('The legal weekly got re-booked into {quoted}')])).toHaveLength(1);
    expect(pairsOf([mem('Orion goes live {date}'), mem('The Orion launch was pushed back to {date}')])).toHaveLength(1);
    expect(pairsOf([mem('The design sync is on {weekday}'), mem('Design reviews on {weekday} are cancelled')])).toHaveLength(1);
    expect(pairsOf([mem('The design sync is on {weekday}'), mem('Design reviews are on {weekday}')])).toEqual([]);
    for (const told of ['We used to deploy on {weekday}', 'Effective {date}, deploys go out on {weekday}', 'Since the reorg we deploy on {weekday}', 'We settled on {weekday} for deploys']) {
      expect(predicateWords(told).change).toBe(true);
    }
    expect(predicateWords('Deploys go out on {weekday}').change).toBe(false);
    expect(predicateWords('Worker is running image {version}').words).toEqual(predicateWords('Worker runs images {version}').words);
    expect(predicateWords('Reports submitted by {date}').words).toEqual(predicateWords('Report submits by {date}').words);
    expect(predicateWords('Catalog responses are cached for {quantity}').words).toEqual(predicateWords('The catalog response cache is {quantity}').words);
    expect(predicateWords('The nightly export kicks off at {time}').words).toEqual(predicateWords('Nightly export starts {time}').words);
    expect(predicateWords('Priya prefers {quoted} mode').words).toEqual(predicateWords('Priya likes the {quoted} theme').words);
    expect(predicateWords('Hotels are paid up to {money}').words).toContain('limit');
    expect(predicateWords('On-call pay went up to {money}').words).not.toContain('limit');
  });

  it('reads "stop doing" as a negation, "re…ed" of a word it repeats and "from the next", "new … terms" as changes', () => {
    const [stop] = findCandidates([mem('Nightly jobs email the report to {quoted}'), mem('Nightly jobs stopped emailing the report to {quoted}')]);
    expect(stop?.opposite).toBe(true);
    expect(predicateWords('Stop tracking the bug in {quoted}').negated).toBe(true);
    expect(predicateWords('Stop words are listed in {quoted}').negated).toBe(false);
    expect(predicateWords('We resharded the cache to {quantity} shards').change).toBe(true);
    expect(predicateWords('We resharded the cache to {quantity} shards').words).not.toContain('resharded');
    // "Required" is not "quired" done again.
    expect(predicateWords('Reviews required before {quantity} merges').change).toBe(false);
    expect(predicateWords('From the next quarter, seats cost {money}').change).toBe(true);
    expect(predicateWords('New hosting terms: storage costs {money}').change).toBe(true);
    expect(predicateWords('New hires get {quantity} laptops').change).toBe(false);
  });

  it('takes a plan with a date for the schedule a later date restates, and never a plan of another kind', () => {
    expect(pairsOf([mem('The v1 API will be switched off on {date}'), mem('The v1 API switch-off slipped to {date}')])).toHaveLength(1);
    expect(pairsOf([mem('The cluster runs {version}'), mem('The cluster will run {version}')])).toEqual([]);
  });

  it('takes any inflection of a verb of change for a change, but not one acting on "a" thing', () => {
    expect(predicateWords('lower the cache sampling to {percent} of reads').change).toBe(false);
    expect(predicateWords('reduce cache sampling to {percent} of reads').change).toBe(true);
    expect(predicateWords('This PR increases the worker ceiling to {quantity}').change).toBe(true);
    expect(predicateWords('Upload parts were enlarged to {quantity}').change).toBe(true);
    expect(predicateWords('Upload parts were enlarged to {quantity}').words).not.toContain('enlarg');
    expect(predicateWords('Disk usage above {percent} raises a warning').change).toBe(false);
    expect(pairsOf([mem('The gateway samples {percent} of traces'), mem('reduce gateway trace sampling to {percent}')])).toHaveLength(1);
  });

  it('reads a ban as the negation of a permission, and "going to a" as a move, not a plan', () => {
    const [ban] = findCandidates([mem('Deploying to prod on {weekday} is fine'), mem('Production releases on {weekday} are banned')]);
    expect(ban?.opposite).toBe(true);
    expect(predicateWords('Fine-grained tokens expire after {quantity}').words).not.toContain('allow');
    expect(predicateWords('The app is going to a monthly release every {quantity}')).toMatchObject({ plan: false, change: true });
    expect(predicateWords('The app is going to release every {quantity}')).toMatchObject({ plan: true, change: false });
  });

  it('compares a memory whose claims were told as a change by a cue as a change, and a plan only when it plans a change', () => {
    expect(toldAsChange([{ cues: [] }, { cues: ['from-now-on'] }])).toBe(true);
    expect(toldAsChange([{ cues: ['correction-label'] }])).toBe(true);
    expect(toldAsChange([{ cues: ['hedge-maybe'] }, { cues: [] }])).toBe(false);
    // "Going forward, retention of audit records is {quantity}": the cue is gone from the predicate.
    const old = mem('Audit records are kept for {quantity}');
    // A qualifier on one side only ("raw") keeps it from a pair by the strict rules.
    const plain = mem('For compliance, raw audit logs are retained {quantity}');
    expect(findCandidates([old, plain])).toEqual([]);
    expect(findCandidates([old, { ...plain, told_as_change: true }])).toHaveLength(1);
    // "The cluster will run v2 from now on": the cue says when the future tense starts, so it
    // restates what runs; "will be upgraded to" plans an upgrade whatever cue matched it.
    expect(findCandidates([mem('The cluster runs {version}'), { ...mem('The cluster will run {version}'), told_as_change: true }])).toHaveLength(1);
    expect(findCandidates([mem('Redis in prod runs {version}'), { ...mem('Redis in prod will be upgraded to {version}'), told_as_change: true }])).toEqual([]);
    expect(findCandidates([mem('The cluster runs {version}'), mem('The cluster will run {version}')])).toEqual([]);
  });

  it('takes an intention for a plan ("aims to cut", "wants to replace"), but a wish that is no change for what holds', () => {
    expect(predicateWords('Wayfarer aims to cut onboarding time by {percent}')).toMatchObject({ plan: true, change: false });
    expect(predicateWords('kiln-design wants to replace the icons with {quoted}')).toMatchObject({ plan: true, change: false });
    expect(predicateWords('Ops plans to move the backups to {host}').plan).toBe(true);
    expect(predicateWords('Dana wants to be paged on {quoted}').plan).toBe(false);
    expect(pairsOf([mem('Wayfarer aims to cut onboarding time by {percent}'), mem('Wayfarer aims to cut support tickets by {percent}')])).toEqual([]);
    expect(pairsOf([mem('kiln-design currently ships icons from {quoted}'), { ...mem('kiln-design wants to replace the icons with {quoted}'), told_as_change: true }])).toEqual([]);
  });

  it('reads the present tense of a verb of change as what a thing does, unless a commit says it of itself', () => {
    expect(predicateWords('avocet-media resizes thumbnails to a width of {quantity}').change).toBe(false);
    expect(predicateWords('This raises the HPA ceiling to {quantity}').change).toBe(true);
    expect(predicateWords('resized thumbnails to a width of {quantity}').change).toBe(true);
    expect(pairsOf([mem('avocet-media resizes thumbnails to a width of {quantity}'), mem('avocet-media resizes previews to a width of {quantity}')])).toEqual([]);
  });

  it('reads "switched off" and "turned off" as the negation of what was on', () => {
    expect(predicateWords('we switched off {quoted} as a login option')).toMatchObject({ negated: true });
    expect(predicateWords('the {quoted} sign-in was turned off')).toMatchObject({ negated: true });
    expect(predicateWords('the {quoted} sign-in was turned on')).toMatchObject({ negated: false });
    const [p] = findCandidates([mem('People sign in with {quoted}'), mem('We switched off {quoted} as a login option')]);
    expect(p?.opposite).toBe(true);
  });

  it('leaves out a clause after the value that holds no value of its own', () => {
    expect(predicateWords('Enforces a minimum invoice amount of {money}; smaller balances roll over').words).not.toContain('balanc');
    expect(predicateWords('Staging moved; use {host}').words).toContain('stag');
    expect(pairsOf([mem('Enforces a minimum invoice amount of {money}; smaller balances roll over'), mem('Enforces a minimum prepaid top-up of {money}; smaller amounts are rejected')])).toEqual([]);
  });

  it('reads a word done again ("relicensed") as the word the other side says, told as a change', () => {
    const [p] = findCandidates([mem('ferrous-sdk is licensed under {quoted}'), mem('ferrous-sdk is relicensed to {quoted}')]);
    expect(p?.reason).toMatch(/shared: [a-z, ]*licens/);
    expect(p?.reason).toContain('told as a change');
    // "Reported" is no "ported" done again: a base of fewer than five letters never counts.
    expect(pairsOf([mem('The gateway reported errors on {quantity}'), mem('The gateway ported errors on {quantity}')])).toEqual([]);
    // Only a past verb: a "search reindex" is a thing, no index done again.
    expect(pairsOf([mem('The platform search reindex runs on {weekday}'), mem('The platform index compaction runs on {weekday}')])).toEqual([]);
  });

  it('pairs a change with the only other fact of its kind in the subject, even with no word in common', () => {
    const day = mem('I usually start my day at {time}', { subject: 'user:bartholomew' });
    const now = mem('Bartholomew starts work at {time} now that the school run changed', { subject: 'user:bartholomew' });
    const [p] = findCandidates([day, now]);
    expect(p?.reason).toContain('the only two facts with them here');
    // Without a change there is nothing to restate; a third fact of the kind makes the change name none in particular.
    expect(findCandidates([day, mem('Bartholomew leaves work at {time}', { subject: 'user:bartholomew' })])).toEqual([]);
    expect(findCandidates([day, now, mem('Lunch is at {time}', { subject: 'user:bartholomew' })])).toEqual([]);
    // Another slot kind, a plan, or a note is no restatement.
    expect(findCandidates([day, mem('Bartholomew starts work on {weekday} now', { subject: 'user:bartholomew' })])).toEqual([]);
    // "Bartholomew will start at {time} from now on": the cue is cut from the template.
    expect(findCandidates([day, { ...mem('Bartholomew will start at {time}', { subject: 'user:bartholomew' }), told_as_change: true }])).toHaveLength(1);
    expect(findCandidates([day, mem('Bartholomew plans to move his start to {time}', { subject: 'user:bartholomew' })])).toEqual([]);
    const negated = findCandidates([mem('Sign-in with {quoted} is offered'), mem('{quoted} was switched off')]);
    expect(negated[0]?.opposite).toBe(true);
  });

  it('hears a change in "is down to", "is the new", "takes … to", a noun of change, news of an update, an event past and a trailing clause', () => {
    const change = (t: string) => predicateWords(t).change;
    expect(change("After the RFP round, sundew's shortlist is down to {quantity} vendors")).toBe(true);
    expect(change('The shortlist is down to {quantity} vendors')).toBe(true);
    // A range the thing moves in each time is no change.
    expect(change('The cluster autoscales down to a minimum of {quantity}')).toBe(false);
    expect(change('marrow-sdk drops older toolchains; Go {version} is the new floor')).toBe(true);
    expect(change('Ramping tamarack: this PR takes exposure to {percent} of users')).toBe(true);
    expect(change('The build takes {quantity} to finish')).toBe(false);
    expect(change('The dedicated servers are {money} a month after their price adjustment')).toBe(true);
    expect(change('Update from Solveig: migration work runs to {date}')).toBe(true);
    expect(change('After the floor refit there are {quantity} bookable desks')).toBe(true);
    expect(change('After {time} calls go to voicemail')).toBe(false);
    // The trailing clause tells the change; its words are still no words of the fact.
    const handover = predicateWords("Please direct office requests to {quoted}; he's taken over from Kadri");
    expect(handover.change).toBe(true);
    expect(handover.words).not.toContain('kadri');
    expect(change('Enforces a minimum invoice amount of {money}; smaller balances roll over')).toBe(false);
  });

  it('reads the future tense with a cue of when in its own words as the rule from then on, not as a plan', () => {
    const closes = predicateWords('The phone line will close at {time} going forward');
    expect(closes).toMatchObject({ change: true, plan: false });
    expect(predicateWords('The phone line will close at {time}')).toMatchObject({ change: false, plan: true });
    // An intention stays a plan whatever cue it carries.
    expect(predicateWords('We plan to close the phone line at {time} going forward')).toMatchObject({ plan: true });
    const subject = 'team:bracken-support';
    const pairs = findCandidates([
      mem("Bracken-support's phone line is staffed until {time} CET", { subject }),
      mem('Hi all, the bracken-support phone line will close at {time} going forward; we are moving those hours to chat', { subject }),
    ]);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]!.reason).toContain('told as a change');
  });

  it('hears a commit line that opens with its verb, "This PR makes", "small change" and "scheduled to" as what they are', () => {
    const words = (t: string) => predicateWords(t);
    expect(words('Relaxes the tessellate-ui coverage gate to {percent} while the legacy widgets are rewritten').change).toBe(true);
    expect(words('Migrates the brackwater modules to {quoted}; state is converted in place').change).toBe(true);
    expect(words('avocet-media resizes thumbnails to a width of {quantity}').change).toBe(false);
    expect(words('This PR makes dipper-search hand back {quantity} hits a page by default').change).toBe(true);
    expect(words("small change, I'm returning a week later, {date}").change).toBe(true);
    expect(words('The sidecars are scheduled to move to Envoy {version} after the freeze')).toMatchObject({ plan: true, change: false });
    // A reason is no plan: "due to the freeze".
    expect(words('Deploys are paused until {date} due to the freeze').plan).toBe(false);
  });

  it('takes a bound, a gerund naming a thing and a fallback for no change, and "unsubscribed" for a negation', () => {
    const words = (t: string) => predicateWords(t);
    expect(words('Tier-one agents take up to {quantity} tickets a day').change).toBe(false);
    expect(words('The Cloudflare Worker for image resizing is routed on {host}').change).toBe(false);
    expect(words('The thumbnailer is resizing images to {quantity} wide').change).toBe(true);
    expect(words('smart-compose falls back to the {quoted} engine when the model times out').change).toBe(false);
    expect(words('Support went back to {quoted} after the trial').change).toBe(true);
    expect(words('Keziah has unsubscribed from the {quoted} email').negated).toBe(true);
    expect(words('Keziah opted out of the {quoted} email').negated).toBe(true);
    const [p] = findCandidates([mem('Keziah wants the {quoted} email'), mem('Keziah has unsubscribed from the {quoted} email')]);
    expect(p?.opposite).toBe(true);
  });

  it('tells the start of a span from its end, and two changes that set parallel things apart', () => {
    expect(pairsOf([mem('Reception is staffed from {time}'), mem('Reception is staffed until {time}')])).toEqual([]);
    const output = mem('This PR sets the lanyard-cli default output format to {quoted}');
    const log = mem('This PR sets the lanyard-cli default log format to {quoted}');
    expect(pairsOf([output, log])).toEqual([]);
    // Alone in their subject and sharing no word, two changes may still restate one fact.
    const laptop = mem("Rafferty's laptop: {quantity} RAM, needs upgrade", { subject: 'user:rafferty' });
    const machine = mem("IT swapped Rafferty's machine; it has {quantity} memory now", { subject: 'user:rafferty' });
    expect(findCandidates([laptop, machine])).toHaveLength(1);
  });

  it('reads "may" and "can" as a permission a ban negates, and a fact "after the pricing change" as changed', () => {
    const [p] = findCandidates([mem("Personal phones may join the {quoted} network, per chervil-security"), mem('chervil-security has banned personal phones from {quoted}')]);
    expect(p?.opposite).toBe(true);
    expect(predicateWords('Personal phones may join the {quoted} network').words).toContain('allow');
    expect(predicateWords('{quantity} may be stored').words).not.toContain('allow');
    expect(predicateWords('Free workspaces get {quantity} responses monthly after the pricing change').change).toBe(true);
    expect(predicateWords('Delete branch {quoted} after the migration').change).toBe(false);
    expect(predicateWords('The provider throttled anchovy-mailer; we are capped at {quantity} emails a second').change).toBe(true);
  });

  it('hears "Done: …", "post-cutover" and "you\'ll find him in" as they are meant, and an instruction in a trailing clause as none', () => {
    const words = (t: string) => predicateWords(t);
    expect(words("Done per radiology's request: inactivity timeout on the viewer is {quantity}").change).toBe(true);
    expect(words('Post-cutover the kiosk app talks to {host}').change).toBe(true);
    expect(words("Kwame has moved desks; you'll find him in the {quoted}")).toMatchObject({ change: true, plan: false });
    expect(words('The desk will be in the {quoted}').plan).toBe(true);
    expect(words('The maintenance window closes at {time}; everything must be done or rolled back by then').change).toBe(false);
    expect(words("The office manager is {quoted}; he's taken over from Kadri").change).toBe(true);
  });

  it('meets a reset and a rollover, and tells new from existing or returned things apart', () => {
    expect(pairsOf([mem('Daily rewards reset at {time}'), mem('Rollover for the daily rewards is {time}')])).toHaveLength(1);
    expect(pairsOf([mem('Default status for new samples is {quoted}'), mem('Default status for returned samples is {quoted}')])).toEqual([]);
    expect(pairsOf([mem('The price for new subscribers is {money}'), mem('The price for existing subscribers is {money}')])).toEqual([]);
  });

  it('writes its reasons in ASCII', () => {
    const [p] = findCandidates([mem('We do the data audit export every {weekday}'), mem('The data audit export runs on {weekday}')]);
    expect(p?.reason).toContain('differs: ');
    expect(p?.reason).toMatch(/^[\x20-\x7e]*$/);
  });

  it('takes the sole restatement in or out incrementally as its block grows', () => {
    const day = mem('I usually start my day at {time}');
    const now = mem('Bartholomew starts work at {time} now that the school run changed');
    const third = mem('Lunch is at {time}');
    const before = findCandidates([day, now]);
    expect(before).toHaveLength(1);
    const around = candidatesAround([day, now, third], undefined, new Set([third.memory_id]));
    // The old pair is in the widened focus, so a caller drops it, and nothing replaces it.
    expect(around.focus?.has(day.memory_id)).toBe(true);
    expect(around.focus?.has(now.memory_id)).toBe(true);
    expect(around.pairs).toEqual(findCandidates([day, now, third]));
  });

  it('tells parallel facts by how they run, what they are (goal or result) and whom they are for', () => {
    expect(pairsOf([mem('curlew caps scheduled reports at {quantity} rows'), mem('curlew caps ad-hoc reports at {quantity} rows')])).toEqual([]);
    expect(pairsOf([mem('Tinderbox target: {percent} fewer build minutes'), mem('Tinderbox result so far: {percent} fewer build minutes on the pilot repos')])).toEqual([]);
    expect(pairsOf([mem('Admin sessions expire after {quantity} idle'), mem('Customer sessions expire after {quantity} idle')])).toEqual([]);
    // A change may still restate the goal in other words.
    expect(pairsOf([mem('The cache hit rate target is {percent}'), mem('We raised the cache hit rate to {percent}')])).toHaveLength(1);
  });

  it('reads a qualifier on one side only of the only two facts of a kind as detail on the axes that narrow how one fact is said', () => {
    const plain = mem('Design sync happens on {weekday}');
    const weekly = mem('The design team meets every {weekday} for the weekly sync');
    expect(pairsOf([plain, weekly])).toEqual([pair(plain, weekly)]);
    expect(findCandidates([plain, weekly])[0]?.reason).toContain('the only two facts with them here');
    // Among many facts of a kind the qualifier may be the one that tells two apart.
    expect(pairsOf([plain, weekly, mem('Design review is on {weekday}')])).not.toContain(pair(plain, weekly));
    expect(pairsOf([mem('The ranker serves model {version}'), mem('Current ranking model in production: {version}')])).toHaveLength(1);
    expect(pairsOf([mem('The guest wifi password is {quoted}'), mem('Our new guest wifi password: {quoted}')])).toHaveLength(1);
    // Which end of a range, which of a series, whom a rule is for: a fact apart, however few facts there are.
    expect(pairsOf([mem('The pool holds {quantity} connections'), mem('The pool holds at least {quantity} connections')])).toEqual([]);
    expect(pairsOf([mem('Invoices are sent on the {date}'), mem('The first invoice is sent on the {date}')])).toEqual([]);
    expect(pairsOf([mem('Sessions expire after {quantity} idle'), mem('Admin sessions expire after {quantity} idle')])).toEqual([]);
    // A qualifier on each side, on one axis, is two facts alone or not.
    expect(pairsOf([mem('Backups are kept daily for {quantity}'), mem('Backups are kept weekly for {quantity}')])).toEqual([]);
  });

  it('meets a certificate and its cert, an expiry and what expires, a probe and a check, closure and closed', () => {
    expect(pairsOf([mem('The VPN cert expiry is {date}'), mem('The VPN certificate expires on {date}')])).toHaveLength(1);
    expect(pairsOf([mem('Health checks run every {quantity}'), mem('We now probe health every {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('The depot closure is on {date}'), mem('The depot is closed on {date}')])).toHaveLength(1);
    expect(pairsOf([mem('The depot closure is on {date}'), mem('The warehouse closure is on {date}')])).toEqual([]);
  });

  it('asks two shared words of a pair that swaps a word on each side, and none of them a word of the subject', () => {
    expect(pairsOf([mem('Sprints are {quantity} long'), mem('Release cycles are {quantity} long')])).toEqual([]);
    expect(pairsOf([mem('Pin terraform to {version}'), mem('Pin the AWS provider to {version}')])).toEqual([]);
    const backend = { subject: 'team:backend' };
    expect(pairsOf([mem('Backend standup is at {time}', backend), mem('Backend team lunch is at {time}', backend)])).toEqual([]);
    expect(pairsOf([mem('Catalog listings are cached for {quantity}'), mem('Listings of the catalog stay cached {quantity}')])).toHaveLength(1);
  });

  it('takes a linking verb on one side only ("runs", "is") for wording, not a substitution', () => {
    expect(pairsOf([mem('The ranker runs model {version}'), mem('Ranker model deployed: {version}')])).toHaveLength(1);
    // A verb swapped in its place is a substitution; between the only two facts of a kind, one said
    // elsewhere in the line is how it is worded (`swappedInPlace`).
    expect(pairsOf([mem('The ranker serves model {version}'), mem('Ranker trains model {version}')])).toEqual([]);
    expect(pairsOf([mem('The ranker serves model {version}'), mem('Ranker model deployed: {version}')])).toHaveLength(1);
  });

  it('compares notes by their words, whatever their fingerprints', () => {
    const a = mem('note', { qualifiers: { fingerprint: 'aaa' }, note: 'The user prefers dark mode' });
    const b = mem('note', { qualifiers: { fingerprint: 'bbb' }, note: 'The user likes dark mode' });
    const [p] = findCandidates([a, b]);
    expect(p?.score).toBe(1);
  });

  it('is a set function: any order and any duplication give the same pairs', () => {
    const pool = [
      tue,
      thu,
      thu2,
      prod,
      mem('The nightly backup runs at {time}'),
      mem('Backups run nightly at {time}'),
      mem('The API rate limit is {quantity}'),
      mem('Rate limit for the API: {quantity}'),
      mem('The web rate limit is {quantity}'),
      mem('note', { qualifiers: { fingerprint: 'x' }, note: 'Ana owns billing' }),
      mem('note', { qualifiers: { fingerprint: 'y' }, note: 'Billing is owned by Ana' }),
    ];
    const expected = findCandidates(pool);
    fc.assert(
      fc.property(fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }), fc.subarray(pool), (shuffled, extra) => {
        expect(findCandidates([...shuffled, ...extra])).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  // Change statements that share a word with several facts, so loose pairs come and go as
  // memories are added and removed.
  const pool = [
    tue, thu, thu2, prod,
    mem('Sprint demos are on {weekday}'), mem('Demos happen {weekday} afternoons'), mem('Backend pairs on {weekday}'), mem('We moved our pairing day to {weekday}'),
    mem('The payments invoice sync runs on {weekday}'), mem('The payments vendor review runs on {weekday}'), mem('The payments audit export runs on {weekday}'),
    mem('Payments moved the ledger close to {weekday}'), mem('The payments ledger close is on {weekday}'), mem('The payments token sweep runs on {weekday}'),
    // A chain of changes, each sharing a word with the next: incremental must hold along it.
    mem('Ledger audits moved to {weekday}'), mem('Audit exports now happen on {weekday}'), mem('Exports reviews were rescheduled to {weekday}'), mem('Review digests moved to {weekday}'),
    // Small blocks sharing no word: a change and the only other fact of its kind, until a third comes.
    mem('I usually start my day at {time}'), mem('Standup now begins at {time}'), mem('Lunch is at {time}'),
    mem('Mail goes through {host}'), mem('We switched the relay to {host}'),
  ];
  const key = (p: { a: string; b: string }) => `${p.a}|${p.b}`;
  const touches = (ids: ReadonlySet<string>) => (p: { a: string; b: string }) => ids.has(p.a) || ids.has(p.b);

  it('is incremental: the old pairs outside the widened focus plus the pairs around it are all the pairs', () => {
    fc.assert(
      fc.property(fc.subarray(pool), (added) => {
        const old = pool.filter((m) => !added.includes(m));
        const around = candidatesAround(pool, undefined, new Set(added.map((m) => m.memory_id)));
        const kept = findCandidates(old).filter((p) => !touches(around.focus!)(p));
        expect([...kept, ...around.pairs].map(key).sort()).toEqual(findCandidates(pool).map(key).sort());
      }),
      { numRuns: 200 },
    );
  });

  it('is incremental when a block of two, a sole pair, is joined by several memories at once', () => {
    const day = mem('I usually start my day at {time}');
    const now = mem('Standup now begins at {time}');
    const added = [mem('Lunch is at {time}'), mem('The gym closes at {time}'), mem('Office hours end at {time}')];
    expect(findCandidates([day, now]).map((p) => p.reason)).toEqual([expect.stringContaining('the only two facts with them here')]);
    const all = [day, now, ...added];
    const around = candidatesAround(all, undefined, new Set(added.map((m) => m.memory_id)));
    // The old pair is recomputed (it is no sole pair in a block of five), not kept as it was.
    expect(around.focus?.has(day.memory_id)).toBe(true);
    expect(around.pairs.map(key)).toEqual(findCandidates(all).map(key));
  });

  it('is incremental with a word past the limit: the focus that takes a word past it recomputes every pair', () => {
    // A limit of 3 on this pool: "payments", "runs" and others hold more than 3 memories.
    const limit = 3;
    let crossed = 0;
    let kept = 0;
    fc.assert(
      fc.property(fc.subarray(pool), (added) => {
        const old = pool.filter((m) => !added.includes(m));
        const all = findCandidates(pool, undefined, undefined, limit);
        const around = candidatesAround(pool, undefined, new Set(added.map((m) => m.memory_id)), limit);
        if (!around.focus) {
          crossed += 1;
          expect(around.pairs.map(key).sort()).toEqual(all.map(key).sort());
          return;
        }
        kept += 1;
        const before = findCandidates(old, undefined, undefined, limit).filter((p) => !touches(around.focus!)(p));
        expect([...before, ...around.pairs].map(key).sort()).toEqual(all.map(key).sort());
      }),
      { numRuns: 200 },
    );
    // Both ways taken: a focus that crossed the limit, and one that stayed incremental.
    expect(crossed).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
  });

  it('proposes no pair through a word more than WORD_LIMIT memories of a block hold, and still pairs them through a rarer word', () => {
    const settings = Array.from({ length: WORD_LIMIT + 1 }, (_, i) => mem(`setting ${i} is {quantity}`));
    expect(findCandidates(settings)).toEqual([]);
    // Two wordings sharing a rarer word besides the common one are still a pair, scored on all words.
    const a = mem('The checkout setting timeout is {quantity}');
    const b = mem('Checkout setting timeout: {quantity}');
    const withPair = findCandidates([...settings, a, b]);
    expect(withPair.map(key)).toEqual([key({ a: [a.memory_id, b.memory_id].sort()[0]!, b: [a.memory_id, b.memory_id].sort()[1]! })]);
    expect(withPair).toEqual(findCandidates([a, b]));
    // Three wordings of one fact sharing only words all three hold: paired at a limit of 3, not past it.
    const three = [mem('The checkout setting is {quantity}'), mem('The checkout setting now reads {quantity}'), mem('Checkout setting: {quantity}')];
    expect(findCandidates(three, undefined, undefined, 3)).toEqual(findCandidates(three));
    expect(findCandidates(three)).toHaveLength(3);
    expect(findCandidates(three, undefined, undefined, 2)).toEqual([]);
  });

  it('brings back a change\'s loose pairs when a memory none of its shown pairs named is removed, so a removal recomputes every pair', () => {
    const close = mem('Payments moved the ledger close to {weekday}');
    const many = Array.from({ length: LOOSE_LIMIT + 1 }, (_, i) => mem(`The payments ledger ${['audit', 'export', 'archive', 'review', 'backup', 'digest'][i]} runs on {weekday}`));
    const ofClose = touches(new Set([close.memory_id]));
    // One loose pair too many: none is shown, so no stored pair of the change names the one removed.
    expect(findCandidates([close, ...many]).filter(ofClose)).toEqual([]);
    const left = [close, ...many.slice(1)];
    expect(findCandidates(left).filter(ofClose)).toHaveLength(LOOSE_LIMIT);
  });

  it('keeps the loose pairs of a change only when it has no nearer fact and a few at most', () => {
    const close = mem('Payments moved the ledger close to {weekday}');
    // Alone with the fact it restates in other words, a change pairs loosely with it.
    expect(pairsOf([close, mem('The payments ledger is balanced on {weekday}')])).toHaveLength(1);
    // A fact in its own words is nearer: the loose pair goes, the strict one stays.
    const near = mem('The payments ledger close is on {weekday}');
    const pairs = findCandidates([close, near, mem('The payments ledger is balanced on {weekday}')]);
    expect(pairs.map(key)).toEqual([key({ a: [close.memory_id, near.memory_id].sort()[0]!, b: [close.memory_id, near.memory_id].sort()[1]! })]);
    // Sharing one word with more facts than LOOSE_LIMIT names none of them.
    const many = Array.from({ length: LOOSE_LIMIT + 1 }, (_, i) => mem(`The payments ledger ${['audit', 'export', 'archive', 'review', 'backup', 'digest'][i]} runs on {weekday}`));
    expect(findCandidates([close, ...many]).filter(touches(new Set([close.memory_id])))).toEqual([]);
    expect(findCandidates([close, ...many.slice(0, LOOSE_LIMIT)]).filter(touches(new Set([close.memory_id])))).toHaveLength(LOOSE_LIMIT);
  });

  it('lists each memory’s candidates both ways, best first', () => {
    const by = candidatesByMemory(findCandidates([tue, thu, thu2]));
    expect(by.get(tue.memory_id)!.map((c) => c.memory_id).sort()).toEqual([thu.memory_id, thu2.memory_id].sort());
    const scores = by.get(tue.memory_id)!.map((c) => c.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });
});

describe('candidates: tenth round (canon-compiler/14)', () => {
  const opposite = (x: CandidateInput, y: CandidateInput) => findCandidates([x, y])[0]?.opposite === true;

  it('reads an adverb of degree ("outright", "entirely") as no word of the fact', () => {
    expect(opposite(mem('Releases can go out on {weekday}'), mem('Releases on {weekday} are banned outright'))).toBe(true);
    expect(pairsOf([mem('Releases can go out on {weekday}'), mem('Schema migrations are banned entirely on {weekday}')])).toEqual([]);
  });

  it('tells "ported to" as a change, while "port" stays a noun of a fact', () => {
    expect(predicateWords('The admin UI has been ported to {quoted}').change).toBe(true);
    expect(predicateWords('The admin API listens on port {quantity}').change).toBe(false);
    expect(predicateWords('The importer ported {quantity} records last night').change).toBe(false);
    expect(pairsOf([mem('The billing admin UI is built with {quoted}'), mem('The billing admin UI has been ported to {quoted}')])).toHaveLength(1);
  });

  it('tells a figure that rose or fell, in the past, as a change; an alert on a rise is none', () => {
    expect(predicateWords('The weekly error budget fell to {percent}').change).toBe(true);
    expect(predicateWords('Signups jumped to {quantity} a day').change).toBe(true);
    expect(predicateWords('Page the on-call when the error rate rises above {percent}').change).toBe(false);
  });

  it('tells "replaced by" or "replaced with" as a change; a replacement cycle is none', () => {
    expect(predicateWords('The cron runner was replaced by {quoted}').change).toBe(true);
    expect(predicateWords('Office chairs are replaced every {quantity}').change).toBe(false);
  });

  it('reads an aim at a target as in force, and an aim at a change as a plan', () => {
    expect(predicateWords('We aim to answer refund requests within {quantity}').plan).toBe(false);
    expect(predicateWords('We aim to cut refund delays by {percent}').plan).toBe(true);
    expect(pairsOf([mem('Refund requests are answered within {quantity}'), mem('We aim to answer refund requests within {quantity}')])).toHaveLength(1);
  });

  it('tells "drop the timeout to {value}" as a change, not "drop below"', () => {
    expect(predicateWords('Please drop the session idle timeout to {quantity}').change).toBe(true);
    expect(predicateWords('Halt the canary when healthy hosts drop below {percent}').change).toBe(false);
  });

  it('reads the future with "now" as the rule from now on, and "now that" as no cue', () => {
    expect(predicateWords("Reviews will now need {quantity} approvals").plan).toBe(false);
    expect(predicateWords("Reviews will now need {quantity} approvals").change).toBe(true);
    expect(predicateWords('Reviews will need {quantity} approvals now that the team grew').plan).toBe(true);
  });

  it('leaves out the aside after a comma in a change, with its negations', () => {
    const before = mem('The usage report also goes out on {weekday}');
    const after = mem("The usage report doesn't go out on {weekday} anymore, sales didn't read it");
    expect(opposite(before, after)).toBe(true);
    // Not told as a change, the clause after the comma is still a part of the statement.
    expect(predicateWords("The usage report goes out on {weekday}, unless sales doesn't need it").negated).toBe(true);
  });

  it('reads "turned X off" with a short object between as a negation', () => {
    expect(opposite(mem('Smart replies are enabled for {quoted} accounts'), mem('We turned smart-replies off for {quoted} accounts'))).toBe(true);
    // Turned on, the same feature is the same fact restated, not its negation.
    const on = findCandidates([mem('Smart replies are enabled for {quoted} accounts'), mem('We turned smart-replies on for {quoted} accounts')]);
    expect(on).toHaveLength(1);
    expect(on[0]!.opposite).toBeUndefined();
  });

  it('reads a refusal as the negation of acceptance', () => {
    expect(opposite(mem('The edge accepts client certificates from {quoted}'), mem('Client certificates from {quoted} are refused at the edge now'))).toBe(true);
    expect(pairsOf([mem('The edge accepts TLS {version}'), mem('The mail relay rejects TLS {version}')])).toEqual([]);
  });

  it('reads "back from" as the return, a fact apart from the leaving; "moved back to" is a change', () => {
    expect(pairsOf([mem('Priya leaves for the conference on {date}'), mem('Priya is back from the conference on {date}')])).toEqual([]);
    expect(pairsOf([mem('Priya is back from leave on {date}'), mem('Priya is returning from leave on {date}')])).toHaveLength(1);
    expect(predicateWords('Standup moved back to {time}').words.has('back')).toBe(false);
  });

  it('reads the kind of leave as a qualifier', () => {
    expect(pairsOf([mem('Staff get {quantity} of paid leave'), mem('Staff get {quantity} of paid sick leave')])).toEqual([]);
    expect(pairsOf([mem('Staff get {quantity} of paid sick leave'), mem('Paid sick leave for staff is {quantity}')])).toHaveLength(1);
  });

  it('reads the stage of data (raw, aggregated) as a qualifier', () => {
    expect(pairsOf([mem('The raw clicks table is kept for {quantity}'), mem('The clicks table is partitioned daily and kept for {quantity}')])).toEqual([]);
    expect(pairsOf([mem('The raw clicks table is kept for {quantity}'), mem('The aggregated clicks table is kept for {quantity}')])).toEqual([]);
    expect(pairsOf([mem('Raw click events are kept for {quantity}'), mem('We retain raw click events for {quantity}')])).toHaveLength(1);
  });

  it('reads "time off" as leave, and "taking" as "take"', () => {
    expect(predicateWords('Nadia is taking {quantity}').words).toEqual(predicateWords('Nadia takes {quantity}').words);
    expect(pairsOf([mem('Nadia is taking {quantity} of leave in August'), mem("Nadia's August time off comes to {quantity} in total")])).toHaveLength(1);
    expect(pairsOf([mem('Nadia is taking {quantity} of leave in August'), mem('Nadia is taking {quantity} of training in August')])).toEqual([]);
  });

  it('reads the agent noun of the subject\'s name ("the uploader" of photo-upload) as the subject', () => {
    const subject = 'service:photo-upload';
    expect(pairsOf([mem('photo-upload is running {version}', { subject }), mem('Deployed version of the uploader: {version}', { subject })])).toHaveLength(1);
    expect(pairsOf([mem('photo-upload is running {version}', { subject }), mem('Deployed version of the encoder: {version}', { subject })])).toEqual([]);
  });

  it('reads "goes live" as a launch and "tops out at" as a limit', () => {
    expect(pairsOf([mem('Orion goes live on {date}'), mem('The Orion launch is on {date}')])).toHaveLength(1);
    expect(pairsOf([mem('Orion goes live on {date}'), mem('Orion goes to beta on {date}')])).toEqual([]);
    expect(pairsOf([mem('The build cache is capped at {quantity}'), mem('The build cache tops out at {quantity}')])).toHaveLength(1);
    expect(predicateWords('The company tops up pensions by {percent}').words.has('limit')).toBe(false);
  });

  it('reads "no more than" as a bound, neither a negation nor a change', () => {
    const w = predicateWords('Wants no more than {quantity} meetings a day');
    expect([w.change, w.negated, w.words.has('limit')]).toEqual([false, false, true]);
    expect(predicateWords('No more {weekday} deploys').change).toBe(true);
    expect(pairsOf([mem('Wants at most {quantity} meetings a day'), mem('Wants no more than {quantity} meetings a day')])).toHaveLength(1);
  });

  it('pairs idle and inactivity, uptime and availability, licence and license', () => {
    expect(pairsOf([mem('Console sessions expire after {quantity} of inactivity'), mem('The idle expiry on a console session is {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('The checkout uptime target is {percent}'), mem('The checkout availability target is {percent}')])).toHaveLength(1);
    expect(pairsOf([mem('We are licensed for {quantity} seats'), mem('The licence covers {quantity} seats')])).toHaveLength(1);
    expect(pairsOf([mem('The proxy idle timeout is {quantity}'), mem('The proxy connect timeout is {quantity}')])).toEqual([]);
  });

  it('reads what should be once an event comes as a plan, apart from what is', () => {
    expect(pairsOf([mem('The test suite takes {quantity} on CI'), mem('The test suite should take {quantity} on CI after the caching work lands')])).toEqual([]);
    expect(predicateWords('Reviews should happen after {quantity}').plan).toBe(false);
    expect(pairsOf([mem('The test suite takes {quantity} on CI'), mem('The test suite should take {quantity}')])).toHaveLength(1);
  });
});

describe('candidates: eleventh round (canon-compiler/17)', () => {
  it('tells parallel facts said in one frame with one part swapped, however long the part', () => {
    expect(pairsOf([mem('Billing gives a {percent} discount to family plan members'), mem('Billing gives a {percent} discount to patients over sixty-five')])).toEqual([]);
    expect(pairsOf([mem('HR reimburses up to {money} a year for professional training'), mem('HR reimburses up to {money} a year for home office equipment')])).toEqual([]);
    // "starts" is "open" too, which the frame already says: still the part swapped.
    expect(pairsOf([mem('Open enrollment starts on {date}'), mem('Open enrollment ends on {date}')])).toEqual([]);
    // Told as a change too, once the subject holds other facts of the kind (the sole restatement aside).
    const reduced = mem('The coastal branch runs a reduced hourly service on {weekday}');
    const extra = mem('The coastal branch runs an extra late-evening service on {weekday}');
    expect(pairsOf([reduced, extra, mem('Freight trains use the branch on {weekday}')]).filter((p) => p === pair(reduced, extra))).toEqual([]);
  });

  it('tells a long swapped part, and a word moved within a long one, as it tells a short one', () => {
    const long = (tag: string) => Array.from({ length: 30 }, (_, i) => `${tag}${String.fromCharCode(97 + (i % 26))}${i >= 26 ? 'z' : ''}`).join(' ');
    const frame = 'HR reimburses up to {money} a year for';
    expect(pairsOf([mem(`${frame} ${long('alpha')} and more`), mem(`${frame} ${long('beta')} and more`)])).toEqual([]);
    // The same long part, one word moved to its other end: a rewording, which the frame rule leaves to the others.
    const words = long('alpha').split(' ');
    const moved = [...words.slice(1), words[0]].join(' ');
    expect(pairsOf([mem(`${frame} ${long('alpha')} and more`), mem(`${frame} ${moved} and more`)])).toHaveLength(1);
    // A long frame: a swapped part may repeat one of the frame's words ("framea") and is still a part swapped.
    const wide = long('frame');
    expect(pairsOf([mem(`${wide} gamma delta zeta eta ${long('tail')} {weekday}`), mem(`${wide} epsilon theta iota ${long('tail')} {weekday}`)])).toEqual([]);
    expect(pairsOf([mem(`${wide} framea delta zeta eta ${long('tail')} {weekday}`), mem(`${wide} epsilon theta iota ${long('tail')} {weekday}`)])).toEqual([]);
  });

  it('still pairs a rewording: words moved, a linking verb or a cue of change in the swapped part', () => {
    expect(pairsOf([mem('The amber sync runs on {weekday}'), mem('We run the amber sync every {weekday}')])).toHaveLength(1);
    expect(pairsOf([mem('The nightly backup runs at {time}'), mem('The nightly backup now runs at {time}')])).toHaveLength(1);
    expect(pairsOf([mem('Backups of the ledger are kept for {quantity}'), mem('Backups of the ledger are retained for {quantity}')])).toHaveLength(1);
  });

  it('reads which side of a threshold a rule is for as a qualifier', () => {
    expect(pairsOf([mem('Grading pays a premium on wheat above {percent} protein'), mem('Grading applies a discount on wheat below {percent} protein')])).toEqual([]);
  });

  it('hears "starting this term", "starting with the fall schedule" and "from here on" as changes, at the head of a line', () => {
    expect(predicateWords('Starting this term we charge schools {money} per student for guided programs').change).toBe(true);
    expect(predicateWords('Starting with the fall schedule, the morning program begins at {time}').change).toBe(true);
    expect(predicateWords('Names starting with {quoted} are reserved').change).toBe(false);
    expect(predicateWords('{weekday} are appointment-only from here on').change).toBe(true);
    expect(pairsOf([mem('School group programs cost {money} per student'), mem('Starting this term we charge schools {money} per student for guided programs')])).toHaveLength(1);
  });

  it('hears "patched up to" as a change and no bound, and "over the weekend" and "inside" as no words of the fact', () => {
    const patched = predicateWords('MES production was patched up to {version} over the weekend');
    expect(patched.change).toBe(true);
    expect([...patched.words].sort()).toEqual(['mes', 'production']);
    expect(predicateWords('The warehouse gets patched on {weekday}').change).toBe(false);
    expect(predicateWords('Business customers hear back from support inside {quantity}').words.has('insid')).toBe(false);
    expect(pairsOf([mem('The MES is on {version} in production'), mem('MES production was patched up to {version} over the weekend')])).toHaveLength(1);
  });

  it('meets new arrivals and incoming ones, which outgoing ones still stand apart from', () => {
    expect(pairsOf([mem('New arrivals stay in quarantine for {quantity}'), mem('After the scare the clinic extended quarantine for incoming animals to {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('Incoming calls ring for {quantity}'), mem('Outgoing calls ring for {quantity}')])).toEqual([]);
  });
});

describe('candidates: twelfth round (canon-compiler/18)', () => {
  it('meets the first and the earliest, and hears the timetable a value holds under as a change', () => {
    expect(predicateWords('With the winter timetable, the earliest boat out to the island goes at {time}').change).toBe(true);
    expect(predicateWords('Under the new rota, Mina covers {weekday}').change).toBe(true);
    expect(predicateWords('The ferry runs with the tide at {time}').change).toBe(false);
    expect(pairsOf([mem('The first sailing to the isle leaves at {time}'), mem('With the winter timetable, the earliest boat out to the island goes at {time}')])).toHaveLength(1);
    // "The latest invoice" is the newest, and stays no "last" thing.
    expect(pairsOf([mem('Sentry bills us {money} a month'), mem('The latest Sentry invoice came in at {money} after they changed the tier')])).toHaveLength(1);
  });

  it('tells the two ways of a route apart', () => {
    expect(pairsOf([mem('The last sailing from the mainland to the isle departs at {time}'), mem('The last sailing from the isle back to the mainland departs at {time}')])).toEqual([]);
    expect(pairsOf([mem('The last sailing from the mainland to the isle departs at {time}'), mem('The final boat from the mainland to the isle now leaves at {time}')])).toHaveLength(1);
  });

  it('reads "good news" as no new thing, an order to point a thing at a value, "from this term" and "gone over to" as changes', () => {
    expect(predicateWords('Good news: we have dropped the refund charge to {money}').words.has('new')).toBe(false);
    expect(predicateWords('Point the tide feed at {host} and retire the old box').change).toBe(true);
    expect(predicateWords('Point the tide feed at {host} and retire the old box').words.has('old')).toBe(false);
    expect(predicateWords('Give {quantity} weekly from this term').change).toBe(true);
    expect(predicateWords('Ines has gone over to {quoted} mode in the editor').change).toBe(true);
    expect(predicateWords('We go over the numbers on {weekday}').change).toBe(false);
  });

  it('takes the length or duration of a span for no word of the fact', () => {
    expect(pairsOf([mem('The scheduler books sessions of {quantity} by default'), mem('Default session length in the scheduler: {quantity}')])).toHaveLength(1);
  });

  it('tells the time a thing switches on from the time it switches off, with no negation', () => {
    const on = predicateWords('The drying room fans switch on at {time}');
    const off = predicateWords('The drying room fans switch off at {time}');
    expect(off.negated).toBe(false);
    expect(pairsOf([mem('The drying room fans switch on at {time}'), mem('The drying room fans switch off at {time}')])).toEqual([]);
    expect(on.words.has('switch-on') && off.words.has('switch-off')).toBe(true);
    expect(predicateWords('We switched off {quoted}').negated).toBe(true);
  });
});

describe('candidates: thirteenth round (canon-compiler/19), words of one thing from general usage', () => {
  it('meets pay and payroll, a cache and its TTL, a pin and a lock, a purge and a deletion', () => {
    expect(pairsOf([mem('Staff salaries are paid on {weekday}'), mem('Payroll goes out every {weekday}')])).toHaveLength(1);
    expect(pairsOf([mem('Price lookups are cached for {quantity}'), mem('The price lookup TTL is {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('The mobile app pins the maps SDK at {version}'), mem('The maps SDK version the mobile app is locked to: {version}')])).toHaveLength(1);
    expect(pairsOf([mem('Guest uploads are deleted after {quantity}'), mem('We purge guest uploads after {quantity}')])).toHaveLength(1);
  });

  it('meets a document and a runbook, PTO and vacation, a quota and a limit', () => {
    expect(pairsOf([mem('The failover doc says to wait {quantity} before promoting'), mem('Per the failover runbook, wait {quantity} before promoting')])).toHaveLength(1);
    expect(pairsOf([mem('New hires get {quantity} of PTO'), mem('New hires get {quantity} of vacation')])).toHaveLength(1);
    expect(pairsOf([mem('The data team storage quota is {quantity}'), mem('The data team storage limit is {quantity}')])).toHaveLength(1);
  });

  it('keeps a word that names a service ("billing") and kinds of a thing (a van, a truck) apart', () => {
    // "billing" here is a word of the fact, not of the subject's name (which is "service:billing" elsewhere).
    const finance = { subject: 'team:finance' };
    expect(pairsOf([mem('The billing invoice run starts at {time}', finance), mem('The billing payout run starts at {time}', finance)])).toEqual([]);
    expect(pairsOf([mem('A van route is capped at {quantity} stops'), mem('A truck route is capped at {quantity} stops')])).toEqual([]);
  });
});

describe('candidates: qualifiers on one axis or two (canon-compiler/21)', () => {
  const desk = { subject: 'team:help-desk' };

  it('lets a change keep a qualifier on each side when they name two axes: each narrows how one fact is said', () => {
    // "first" says which of a series, "customers" whom the rule is for.
    const [p] = findCandidates([mem('help-desk promises a first reply within {quantity}', desk), mem('We tightened it: customers now hear from help-desk inside {quantity}', desk)]);
    expect(p?.reason).toContain('told as a change');
    // Two memories of one kind, one told as a change, sharing no word but the subject's name.
    expect(pairsOf([mem('help-desk answers a first message within {quantity}', desk), mem('customers now get an answer inside {quantity}', desk)])).toHaveLength(1);
  });

  it('keeps two qualifiers on one axis apart, with or without a change', () => {
    // Which of a series: the first reply, the last reply.
    expect(pairsOf([mem('help-desk sends a first reply within {quantity}', desk), mem('help-desk now sends the final reply within {quantity}', desk)])).toEqual([]);
    // Whom it is for.
    expect(pairsOf([mem('Admin sessions expire after {quantity}'), mem('Customer sessions now expire after {quantity}')])).toEqual([]);
    // Every place a thing runs is one axis: an environment against a region is still two facts.
    expect(pairsOf([mem('The staging API now allows {quantity} requests'), mem('The EU API allows {quantity} requests')])).toEqual([]);
    // "non" is the other side of whatever it prefixes.
    expect(pairsOf([mem('Non-members now pay {money} for a first visit'), mem('Members pay {money} for a first visit')])).toEqual([]);
  });

  it('gives every qualifying word, and its stems, one axis', () => {
    expect(QUALIFIER_AXIS.get('first')).toEqual(['order']);
    expect(QUALIFIER_AXIS.get('minimum')).toEqual(['bound']);
    expect(QUALIFIER_AXIS.get('customer')).toEqual(['whom']);
    expect(QUALIFIER_AXIS.get('staging')).toEqual(QUALIFIER_AXIS.get('eu'));
    expect(QUALIFIER_AXIS.get(stem('incoming'))).toEqual(['where']);
    // A synonym group reads "incoming" as "arrival": the word is on both axes.
    expect(QUALIFIER_AXIS.get('arrival')).toEqual(['where', 'age']);
    // A participle's stem is on its axis too, as the words it is compared with are stemmed.
    expect(QUALIFIER_AXIS.get(stem('aggregated'))).toEqual(['stage']);
  });
});

describe('candidates: a swap in place, or a rewording (canon-compiler/22 to /24)', () => {
  it('keeps apart two statements that swap a word or two in the same place', () => {
    const auth = { subject: 'service:auth' };
    expect(pairsOf([mem('Logins are limited to {quantity} per minute per IP', auth), mem('Signups are limited to {quantity} per hour per IP', auth)])).toEqual([]);
    expect(pairsOf([mem("Jovana's usual tea order is a {quoted}", { subject: 'user:jovana' }), mem("Jovana's usual coffee order is a {quoted}", { subject: 'user:jovana' })])).toEqual([]);
  });

  it('reads a word moved as wording only between the only two facts of a kind: among many, it may be what tells them apart', () => {
    const platform = mem('The platform staging deploy runs on {weekday}');
    const payments = mem('Payments schedules the staging deploy for {weekday}');
    expect(pairsOf([platform, payments])).toHaveLength(1);
    expect(findCandidates([platform, payments])[0]?.reason).toContain('the only two facts with them here');
    const search = mem('The search staging deploy runs on {weekday}');
    expect(pairsOf([platform, payments, search])).not.toContain(pair(platform, payments));
  });

  it('answers the same whichever statement is lined up first', () => {
    const statements = [
      mem('Energy refills one point every {quantity}'),
      mem('A point of energy comes back every {quantity}'),
      mem('Logins are limited to {quantity} per minute per IP'),
      mem('Signups are limited to {quantity} per hour per IP'),
      mem('Storage alerts fire at {percent} full'),
      mem('Alert when storage usage crosses {percent}'),
      mem('The standard bonus target is {percent} of base salary'),
      mem('The bonus target for managers is {percent} of base salary'),
    ];
    const shapes = statements.map((m) => shapeOf(m));
    for (const x of shapes) for (const y of shapes) expect(scoreShapes(x, y, true) === null).toBe(scoreShapes(y, x, true) === null);
  });

  it('reads one word of the fact in common, or few, as a rewording unless the rest is swapped in place', () => {
    // One word of the fact in common ("trial"), each side with a word of its own in another place.
    expect(pairsOf([mem('The free trial is {quantity}'), mem('The trial period is {quantity}')])).toHaveLength(1);
    expect(pairsOf([mem('Audit records are kept for {quantity}'), mem('For compliance, audit logs on the box are retained {quantity}')])).toHaveLength(1);
    // Nothing of the fact in common: no pair, wherever the words stand.
    expect(pairsOf([mem('The lobby opens at {time}'), mem('Parcels are collected at {time}')])).toEqual([]);
  });

  it('pairs a rewording that says a word of its own where the other says none', () => {
    const gw = { subject: 'service:gateway' };
    const [p] = findCandidates([mem('Storage alerts fire at {percent} full', gw), mem('Alert when storage usage crosses {percent}', gw)]);
    expect(p?.reason).toContain('shared: alerts, storage');
  });
});

describe('candidates: fourteenth round (canon-compiler/20)', () => {
  it('reads no plan in an aside after the value, and "not even" as pressing a negation, not undoing it', () => {
    const moved = predicateWords('We have moved the docs site to {host}, old links will redirect for a month');
    expect(moved.plan).toBe(false);
    expect(moved.change).toBe(true);
    expect(moved.words.has('old')).toBe(false);
    expect(predicateWords('Docs will move to {host}').plan).toBe(true);
    expect(predicateWords('Interns are no longer allowed to deploy alone, not even for {quantity}').negated).toBe(true);
    expect(predicateWords('Interns may not deploy for {quantity}').negated).toBe(true);
  });

  it('hears "gone to", a role taken by a vote, a version shipped, "from this … on" and a decision as changes', () => {
    expect(predicateWords("We've gone to {percent} commission on new titles").change).toBe(true);
    expect(predicateWords('Traffic goes to {host}').change).toBe(false);
    expect(predicateWords('Priya was voted in as {quoted} at the meeting').change).toBe(true);
    expect(predicateWords('Priya was appointed {quoted}').change).toBe(true);
    expect(predicateWords('Shipped the kiosk app {version} to every store').change).toBe(true);
    expect(predicateWords("We've released {version} of the kiosk app").change).toBe(true);
    expect(predicateWords('Kiosk model deployed: {version}').change).toBe(false);
    expect(predicateWords('Trial periods will be {quantity} from this cohort on').change).toBe(true);
    expect(predicateWords('The board agreed the cap will be {money}').change).toBe(true);
  });

  it('reads "the plan is to", "planning {value}" and "next spring" as plans', () => {
    expect(predicateWords('The plan is to move the kiosks onto {version}').plan).toBe(true);
    expect(predicateWords("We're now planning {quantity} of trials").plan).toBe(true);
    expect(predicateWords("We're now planning {quantity} of trials").words.has('flight')).toBe(false);
    expect(predicateWords('The hall is being extended to take {quantity} racks next spring').plan).toBe(true);
    expect(predicateWords('From next year, seats cost {money}').plan).toBe(false);
  });

  it('hears no change in what a rule does each time: a switch on or off, a branch that is cut, a suspension under a condition', () => {
    expect(predicateWords('The controller switches the fans on when the hall passes {percent}').change).toBe(false);
    expect(predicateWords('We switched the fans to {percent}').change).toBe(true);
    expect(predicateWords('A release branch is cut from main every {quantity}').change).toBe(false);
    expect(predicateWords('Finance cut our monthly cloud allowance to {money}').change).toBe(true);
    expect(predicateWords('Accounts are suspended once an invoice is overdue by {quantity}').change).toBe(false);
    expect(predicateWords('The Friday demo was suspended for {quantity}').change).toBe(true);
    // What happened once, in the past, is still a change.
    expect(predicateWords('The kiosk budget was cut after the audit, {money} left').change).toBe(true);
    expect(predicateWords('The Friday demo was cancelled when only {quantity} people signed up').change).toBe(true);
  });

  it('tells the two sides of a comparative apart, and reads "no bigger than" as a bound', () => {
    expect(pairsOf([mem('The upload check rejects videos longer than {quantity}'), mem('The upload check rejects videos shorter than {quantity}')])).toEqual([]);
    expect(predicateWords('Keep PRs no bigger than {quantity} lines').words.has('limit')).toBe(true);
  });

  it("swaps a word of the subject's name for a word of the fact in one frame: two facts", () => {
    const flag = { subject: 'flag:streak-freeze' };
    expect(pairsOf([mem('The streak freeze flag is on for {percent} of users', flag), mem('The streak repair flag is on for {percent} of users', flag)])).toEqual([]);
    // Left out against nothing, the name's word is no part swapped.
    expect(pairsOf([mem('The streak freeze flag is on for {percent} of users', flag), mem('The streak flag is on for {percent} of users now', flag)])).toHaveLength(1);
  });

  it('pairs a planned span with the same span stretched or slipped, and tells the front from the rear', () => {
    expect(pairsOf([mem('The dock refit is planned for {quantity}'), mem('The dock refit stretched to {quantity} after the survey')])).toHaveLength(1);
    expect(pairsOf([mem('Front tyres are kept at {quantity} psi'), mem('We now run the rear tyres at {quantity} psi')])).toEqual([]);
    expect(pairsOf([mem('Tyres are kept at {quantity} psi'), mem('We now run the tyres at {quantity} psi')])).toHaveLength(1);
  });

  it('reads "wiped down" as no deletion', () => {
    expect(predicateWords('Toys are wiped down on {weekday}').words.has('delete')).toBe(false);
  });
});

describe('shownCandidates', () => {
  it('shows the first CANDIDATES_SHOWN of a kept list, in its order, and the whole of a shorter one', () => {
    const refs = Array.from({ length: CANDIDATES_SHOWN + 5 }, (_, i) => ({ memory_id: `m${i}`, score: 1 - i / 100, reason: 'r' }));
    expect(shownCandidates(refs)).toEqual(refs.slice(0, CANDIDATES_SHOWN));
    const few = refs.slice(0, 3);
    expect(shownCandidates(few)).toBe(few);
    expect(shownCandidates(null)).toEqual([]);
    expect(shownCandidates(undefined)).toEqual([]);
  });
});

describe('keptCandidateLists', () => {
  // Facts worded alike (each pairs with several), changes whose loose pairs come and go as nearer
  // facts arrive, and a small block: with a limit of 2 or 3, most lists are full.
  const pool = [
    mem('The payments invoice sync runs on {weekday}'), mem('The payments invoice sync now happens on {weekday}'), mem('We do the payments invoice sync every {weekday}'),
    mem('Payments schedules the invoice sync for {weekday}'), mem('Heads up: payments invoice sync takes place on {weekday}'),
    mem('The payments ledger is balanced on {weekday}'), mem('Payments moved the ledger close to {weekday}'), mem('The payments ledger close is on {weekday}'),
    // A change ("moved the ledger close") whose loose pairs leave full lists when its nearer fact comes.
    mem('We balance the payments ledger every {weekday}'), mem('Ledger balancing happens on {weekday}'), mem('Ledger close moved to {weekday}'),
    mem('Ledger audits moved to {weekday}'), mem('Audit exports now happen on {weekday}'), mem('The payments audit export runs on {weekday}'),
    mem('Sprint demos are on {weekday}'), mem('Demos happen {weekday} afternoons'),
    mem('I usually start my day at {time}'), mem('Standup now begins at {time}'), mem('Lunch is at {time}'),
  ];
  const everyPair = (memories: readonly CandidateInput[], limit: number) => keptCandidateLists(memories, new Map(), undefined, undefined, limit);

  it('keeps each memory its best pairs, at most the limit, best first: all of them without one', () => {
    const all = candidatesByMemory(findCandidates(pool));
    expect(everyPair(pool, Number.POSITIVE_INFINITY)).toEqual(all);
    const kept = everyPair(pool, 2);
    expect([...kept.keys()].sort()).toEqual([...all.keys()].sort());
    for (const [id, list] of kept) expect(list).toEqual(all.get(id)!.slice(0, 2));
    expect([...all.values()].some((l) => l.length > 2)).toBe(true);
  });

  it('gives, from what the rows kept before memories were created, what every pair gives', () => {
    fc.assert(
      fc.property(fc.subarray(pool), fc.subarray(pool), fc.constantFrom(1, 2, 3), (present, added, limit) => {
        const old = present.filter((m) => !added.includes(m));
        const all = [...old, ...added];
        const stored = everyPair(old, limit);
        expect(keptCandidateLists(all, stored, new Set(added.map((m) => m.memory_id)), undefined, limit)).toEqual(everyPair(all, limit));
      }),
      { numRuns: 400 },
    );
  });

  it('computes again a full list that named a change whose loose pairs went: what ranked after it was not kept', () => {
    const close = mem('Payments moved the ledger close to {weekday}');
    const others = [mem('We balance the payments ledger every {weekday}'), mem('Ledger balancing happens on {weekday}')];
    const nearer = mem('The payments ledger close is on {weekday}');
    const stored = everyPair([close, ...others], 1);
    // Some row kept the change as its one candidate; the nearer fact takes the change's loose pairs away.
    const keeper = [...stored].find(([id, l]) => id !== close.memory_id && l[0]!.memory_id === close.memory_id);
    expect(keeper).toBeDefined();
    const all = [close, ...others, nearer];
    const after = keptCandidateLists(all, stored, new Set([nearer.memory_id]), undefined, 1);
    expect(after).toEqual(everyPair(all, 1));
    // The row now keeps what ranked after the change, which it never stored.
    expect(after.get(keeper![0])).toEqual(candidatesByMemory(findCandidates(all)).get(keeper![0])?.slice(0, 1));
    expect(after.get(keeper![0])?.length).toBe(1);
  });

  it('stays what every pair gives through a sequence of compiles, each creating a few memories', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(pool, { minLength: pool.length, maxLength: pool.length }), fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 17 }), fc.constantFrom(1, 2, 3), (order, steps, limit) => {
        let stored = new Map<string, CandidateRef[]>();
        let at = 0;
        for (const n of [...steps, pool.length]) {
          if (at >= order.length) break;
          const created = order.slice(at, at + n);
          at += n;
          const present = order.slice(0, at);
          stored = keptCandidateLists(present, stored, new Set(created.map((m) => m.memory_id)), undefined, limit);
          expect(stored).toEqual(everyPair(present, limit));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out a silenced pair, and lets the next best in', () => {
    const all = everyPair(pool, 2);
    const [id, list] = [...all].find(([, l]) => l.length === 2)!;
    const silenced = (a: string, b: string) => (a === id && b === list[0]!.memory_id) || (b === id && a === list[0]!.memory_id);
    const without = keptCandidateLists(pool, new Map(), undefined, silenced, 2);
    expect(without.get(id)?.map((c) => c.memory_id)).not.toContain(list[0]!.memory_id);
    const full = candidatesByMemory(findCandidates(pool)).get(id)!.filter((c) => c.memory_id !== list[0]!.memory_id);
    expect(without.get(id)).toEqual(full.slice(0, 2).length > 0 ? full.slice(0, 2) : undefined);
  });
});

describe('a statement told as a change in a subject of notes', () => {
  const note = (text: string, i: number) => mem('note', { subject: 'person:zed', qualifiers: { fingerprint: `f${i}` }, note: text });
  const notes = [
    'Zed likes coffee with oat milk',
    "Zed doesn't drink coffee anymore",
    'Zed prefers dark mode in the editor',
    'Zed now prefers light mode in the editor',
    "Zed's time zone is Europe/Berlin",
    'Zed works from Lisbon; his timezone is Europe/Lisbon',
  ].map(note);

  it('pairs with the fact it restates, never with one sharing only the name of the subject, however many notes the subject holds', () => {
    // Paired through "zed" alone, each change had more loose pairs than LOOSE_LIMIT once the
    // subject held six notes, and lost all of them: the coffee and the editor's theme too.
    const pairs = findCandidates(notes);
    const coffee = pairs.find((p) => [p.a, p.b].sort().join('|') === pair(notes[0]!, notes[1]!));
    const theme = pairs.find((p) => [p.a, p.b].sort().join('|') === pair(notes[2]!, notes[3]!));
    expect(coffee).toMatchObject({ opposite: true });
    expect(theme?.reason).toContain('differs: dark / light');
    for (const p of pairs) expect(p.reason).not.toMatch(/shared: zed;/);
  });
});

describe('two notes in one frame but for their last words', () => {
  const note = (text: string, i: number, subject = 'service:orders') => mem('note', { subject, qualifiers: { fingerprint: `n${i}` }, note: text });
  const paired = (a: string, b: string, subject?: string) => findCandidates([note(a, 1, subject), note(b, 2, subject)]).length === 1;

  it('are one fact told two ways: a possible contradiction (a note has no slot; its value is its words)', () => {
    expect(paired('The orders service is owned by the Platform team', 'The orders service is owned by the Checkout team')).toBe(true);
    expect(paired('The orders service uses MySQL', 'The orders service uses PostgreSQL')).toBe(true);
    expect(paired('Ada prefers dark mode', 'Ada prefers light mode', 'person:ada')).toBe(true);
  });

  it('stay two facts when what differs names which fact it is, at the start or in the middle', () => {
    expect(paired('The EU API is hosted in Frankfurt', 'The US API is hosted in Frankfurt', 'service:api')).toBe(false);
    expect(paired('Deploys to staging are manual', 'Deploys to production are manual', 'service:api')).toBe(false);
    expect(paired('Billing runs nightly', 'Payroll runs nightly', 'service:jobs')).toBe(false);
  });

  it('stay two facts when the frame they share is only the name of the subject', () => {
    // Every note of service:orders may start "The orders …": four facts about the service, no
    // two of them one fact. In a subject not named "orders", "orders" is one word of the fact
    // against the three or four each says after it: no pair either.
    const notes = [
      'The orders on-call is Alice.',
      'The orders service is owned by the Platform team.',
      'The orders dashboard lives in Grafana.',
      'The orders runbook is maintained by the SRE guild.',
    ];
    for (const subject of ['service:orders', 'team:x']) expect(findCandidates(notes.map((t, i) => note(t, i, subject)))).toEqual([]);
    // A word of the fact in the frame besides the name still makes it one fact told two ways.
    expect(paired('The orders on-call is Alice', 'The orders on-call is Bob')).toBe(true);
  });
});

