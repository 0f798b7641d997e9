import { untouchedBodyText } from '../simulator/stored-result.js';
import type { Observation, StepResult } from '../wire/episodes.js';

/**
 * An observation as JSON, with a cached body's stored text written in place as it is: what JSON.stringify writes,
 * without parsing the body and serializing it again (the cache stores bodies as JSON.stringify wrote them).
 */
export function observationJson(observation: Observation): string {
  const text = observation.type === 'tool_call' ? untouchedBodyText(observation) : undefined;
  if (text === undefined) return JSON.stringify(observation);
  let json = '';
  // Member names are plain identifiers (types.ts): written without JSON.stringify.
  for (const key in observation) {
    const value = key === 'body' ? text : JSON.stringify(observation[key as keyof Observation]);
    if (value !== undefined) json += `${json === '' ? '{' : ','}"${key}":${value}`;
  }
  return `${json}}`;
}

/** `POST /v1/episodes/{id}/step`'s answer as JSON text. */
export function stepJson(result: StepResult): string {
  return (
    `{"observations":[${result.observations.map(observationJson).join(',')}],"step":${result.step},"done":` +
    `${result.done}}`
  );
}
