import type { CreatedEpisode } from '../wire/episodes.js';

/** System messages as JSON, by protocol and limits: few distinct ones are ever asked for, so a small bound suffices. */
const systemJson = new Map<string, { content: string; json: string }>();
const MAX_PROMPTS = 64;

/**
 * `JSON.stringify(created)`, byte for byte, with the system message's JSON kept from episode to episode. Escaping
 * the 4 KB system prompt was most of what answering a new episode cost, and a rollout step creates thousands.
 */
export function createdEpisodeJson(created: CreatedEpisode): string {
  const { messages, stop, ...summary } = created;
  const key = `${summary.protocol} ${summary.k} ${summary.max_calls_per_turn} ${summary.max_turns}`;
  const written = messages.map((message) => {
    if (message.role !== 'system') return JSON.stringify(message);
    let cached = systemJson.get(key);
    if (cached?.content !== message.content) {
      if (systemJson.size >= MAX_PROMPTS) systemJson.clear();
      cached = { content: message.content, json: JSON.stringify(message) };
      systemJson.set(key, cached);
    }
    return cached.json;
  });
  return `${JSON.stringify(summary).slice(0, -1)},"messages":[${written.join(',')}],"stop":${JSON.stringify(stop)}}`;
}
