/**
 * The HTTP header naming an episode: sent by clients to run a request inside one, and by `/mcp` to say which one a
 * session records into.
 */
export const EPISODE_HEADER = 'x-toolenv-episode';
