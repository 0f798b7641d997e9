/**
 * The prompt the model responders send: version 1. Every word the model sees lives here; `render.ts` only fills the
 * {{placeholders}}. A changed prompt is a new file with a new version (answers written back to the cache were made
 * under the old one), never an edit of this one.
 */
export const TOOL_RESPONSE_V1 = {
  version: 'tool-response.v1',

  system:
    'You simulate the server behind a tool (an HTTP API operation). ' +
    "You receive the tool's definition and one call's arguments, " +
    `and you answer with the response body that server would return for that call.
Rules:
- Answer with the response body only: one JSON value, no prose, no markdown, no code fence.
- The body must satisfy the response schema when one is given.
- Make it realistic and consistent with the arguments: echo identifiers, names and filters the call passed; ` +
    'invent plausible values for everything else.',

  user: `Tool: {{name}} ({{id}})
Description: {{description}}
Parameters (JSON Schema): {{parameters}}
Response status: {{status}}
Response schema: {{response_schema}}
{{examples}}Call arguments: {{arguments}}
Response body:`,

  /** One few-shot example; examples are joined in the order given, ahead of the call. */
  example: `Example call arguments: {{arguments}}
Example response body: {{body}}
`,

  /** Stands in for the arguments of a spec example, which records only the response. */
  unrecordedArguments: 'not recorded',

  /** Stands in for the response schema of a tool that has none. */
  noSchema: 'none given; answer with the JSON body such an operation usually returns',
} as const;

export type PromptTemplate = typeof TOOL_RESPONSE_V1;
