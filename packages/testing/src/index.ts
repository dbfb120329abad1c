export { createTestDatabase, createEmptyDatabase, type TestDatabase } from './database.js';
export { createTestRuntime, startTestCanon, type TestCanon } from './runtime.js';
export { withDatabase } from './global-setup.js';
export { actorName, deploymentStory, freezeResolution, shuffled, storyActors, type StoryStep } from './stories.js';
export { runCanon, type CliOutcome } from './cli.js';
export { isAlive, killChild, untilServing, type ServingProcess } from './processes.js';
export { PLANTED_SECRETS, plantedKubeconfig } from './secrets.js';
export { useStoreDatabase, newEpisode, logEpisodes, markPending, claimBody, compiledFrom, memoryWrite, inWorkspace, type EpisodeFixture } from './store-fixtures.js';
export { until } from './until.js';
