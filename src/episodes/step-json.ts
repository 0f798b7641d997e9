import { untouchedBodyText } from '../simulator/stored-result.js';
import type { Observation, StepResult } from '../wire/episodes.js';

/**
 * `value` as JSON.stringify writes it, with its member `key` written as the JSON `text` given: a member already
 * serialized (a cached body's stored text, arguments measured against the episode's budget) is not serialized again,
 * and a stored body is never read (parsed) to write it. Member names are plain identifiers (types.ts).
 */
export function jsonWithMember(value: object, key: string, text: string): string {
  let json = '';
  for (const name in value) {
    const member = name === key ? text : JSON.stringify(value[name as keyof typeof value]);
    if (member !== undefined) json += `${json === '' ? '{' : ','}"${name}":${member}`;
  }
  return `${json}}`;
}

/**
 * An observation as JSON, with a cached body's stored text written in place as it is: what JSON.stringify writes,
 * without parsing the body and serializing it again (the cache stores bodies as JSON.stringify wrote them).
 */
export function observationJson(observation: Observation): string {
  const text = observation.type === 'tool_call' ? untouchedBodyText(observation) : undefined;
  return text === undefined ? JSON.stringify(observation) : jsonWithMember(observation, 'body', text);
}

/** `POST /v1/episodes/{id}/step`'s answer as JSON text. */
export function stepJson(result: StepResult): string {
  return (
    `{"observations":[${result.observations.map(observationJson).join(',')}],"step":${result.step},"done":` +
    `${result.done}}`
  );
}
