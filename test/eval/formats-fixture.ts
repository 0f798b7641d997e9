/** Files in BFCL's, API-Bank's and MCP-style shapes, and a library that holds their functions once imported. */
import { join } from 'node:path';
import { readImport, writeImport } from '../../src/library/importers/index.js';
import { writeSources } from '../fixtures/import-sources.js';
import { writeEvalLibrary } from './fixture.js';

/** BFCL function docs as the openai importer takes them (BFCL writes `"type": "dict"`; the importer wants "object"). */
export const bfclFunctions = [
  {
    name: 'calculate_triangle_area',
    description: 'Calculate the area of a triangle given its base and height.',
    parameters: {
      type: 'object',
      properties: { base: { type: 'integer' }, height: { type: 'integer' } },
      required: ['base', 'height'],
    },
  },
  {
    name: 'math.factorial',
    description: 'Calculate the factorial of a given number.',
    parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
  },
];

/** A tools/list result of a weather MCP server. */
export const weatherServerTools = {
  tools: [
    {
      name: 'get_forecast',
      description: 'Weather forecast for a city for the next days.',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      },
    },
    {
      name: 'get_alerts',
      description: 'Active weather alerts for a US state.',
      inputSchema: { type: 'object', properties: { state: { type: 'string' } }, required: ['state'] },
    },
  ],
};

/**
 * The eval library (petstore, ToolBench tools) plus the BFCL functions (openai import) and the weather server (MCP
 * import).
 */
export async function writeFunctionLibrary(): Promise<string> {
  const dir = await writeEvalLibrary();
  const root = writeSources({ 'bfcl/functions.json': bfclFunctions, 'mcp/weather.json': weatherServerTools });
  writeImport(dir, (await readImport(join(root, 'bfcl'), 'openai')).batch);
  writeImport(dir, (await readImport(join(root, 'mcp'), 'mcp')).batch);
  return dir;
}

/** Lines of JSON (or raw text lines) as one JSON Lines text. */
export const jsonl = (...lines: unknown[]): string =>
  lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

const user = (content: string) => ({ role: 'user', content });

/**
 * BFCL_v3-style entries: v3 turns, a system message first, v2 flat messages, an older string question, a multi-turn
 * entry without functions.
 */
export const bfclEntries = [
  {
    id: 'simple_0',
    question: [[user('Find the area of a triangle with a base of 10 units and height of 5 units.')]],
    function: [bfclFunctions[0]],
  },
  {
    id: 'multiple_0',
    question: [[{ role: 'system', content: 'You are a calculator.' }, user('What is 5 factorial?')]],
    function: bfclFunctions,
  },
  { id: 'v2_0', question: [user('Triangle area, base 3 and height 4.')], function: [bfclFunctions[0]] },
  { id: 'old_0', question: 'Factorial of 7, please.', function: bfclFunctions[1] },
  {
    id: 'multi_turn_base_0',
    question: [[user('Go to the document folder.')], [user('Now make a temp folder.')]],
    involved_classes: ['GorillaFileSystem'],
  },
];

/**
 * possible_answer/ for the entries above: AST objects (parallel calls of one function), and multi-turn call strings.
 */
export const bfclAnswers = [
  { id: 'simple_0', ground_truth: [{ calculate_triangle_area: { base: [10], height: [5], unit: ['units', ''] } }] },
  { id: 'multiple_0', ground_truth: [{ 'math.factorial': { number: [5] } }] },
  {
    id: 'v2_0',
    ground_truth: [
      { calculate_triangle_area: { base: [3], height: [4] } },
      { calculate_triangle_area: { base: [3], height: [4] } },
    ],
  },
  {
    id: 'multi_turn_base_0',
    ground_truth: [["cd(folder='document')"], ["mkdir(dir_name='temp')", "cd(folder='temp')"]],
  },
];

/** A BFCL data folder: the question file and its possible_answer/ twin; returns the question file. */
export function writeBfcl(
  entries: unknown[] = bfclEntries,
  answers: unknown[] | string = bfclAnswers,
  name = 'BFCL_v3_simple.json',
): string {
  const root = writeSources({
    [name]: jsonl(...entries),
    [`possible_answer/${name}`]: typeof answers === 'string' ? answers : jsonl(...answers),
  });
  return join(root, name);
}

/** An API-Bank level-1/2 dialog file: one dialog, one turn per line; a ToolSearcher search, a token, then the call. */
export const apibankDialog = [
  { role: 'User', text: 'Can you add a meeting to my agenda for tomorrow at 9?' },
  { role: 'AI', text: 'Sure, let me find the right tool.' },
  {
    role: 'API',
    api_name: 'ToolSearcher',
    param_dict: { keywords: 'add agenda' },
    result: { api_name: 'ToolSearcher', output: { name: 'AddAgenda' }, exception: null },
  },
  { role: 'AI', text: 'I need your username and password.' },
  { role: 'User', text: 'Username foo, password bar.' },
  {
    role: 'API',
    api_name: 'GetUserToken',
    param_dict: { username: 'foo', password: 'bar' },
    result: { output: { token: 'tok' }, exception: null },
  },
  {
    role: 'API',
    api_name: 'AddAgenda',
    param_dict: { token: 'tok', content: 'meeting', time: '2023-03-14 09:00:00' },
    result: { output: 'success', exception: null },
  },
  {
    role: 'API',
    api_name: 'AddAgenda',
    param_dict: { token: 'tok', content: 'lunch', time: '2023-03-14 12:00:00' },
    result: { output: 'success', exception: null },
  },
  { role: 'AI', text: 'Done.' },
];

/** API-Bank level-3 tasks (`level-3.json`): requirement, response, gold calls with ToolSearcher steps. */
export const apibankLevel3 = [
  {
    requirement: ' Query meeting of John and send email reminder to john@example.com.',
    response: 'I found two meetings and sent the reminder.',
    apis: [
      { api_name: 'ToolSearcher', input: { keywords: 'QueryMeeting' }, output: { output: { name: 'QueryMeeting' } } },
      { api_name: 'QueryMeeting', input: { user_name: 'John' }, output: { output: { meetings: [] } } },
      { api_name: 'ToolSearcher', input: { keywords: 'EmailReminder' }, output: { output: { name: 'EmailReminder' } } },
      { api_name: 'EmailReminder', input: { recipient: 'john@example.com' }, output: { output: 'success' } },
    ],
  },
  { requirement: 'Calculate (5+6)*3.', apis: [{ api_name: 'Calculator', input: { formula: '(5+6)*3' } }] },
];

/** API-Bank step samples (`level-1-api.json`): the dialog so far as text, the next call as `API-Request: [...]`. */
export const apibankSteps = [
  {
    file: 'ModifyRegistration-QueryHealthData-level-2-2.jsonl',
    id: 0,
    instruction: 'Generate an API request...',
    input:
      'User: Can you move my appointment to March 26th with Dr. Lee?\nAI: Sure.\n' +
      'User: The appointment ID is 34567890.\nGenerate API Request:\n',
    expected_output: "API-Request: [ModifyRegistration(appointment_id='34567890', new_appointment_date='2023-03-26')]",
  },
  {
    file: 'ModifyRegistration-QueryHealthData-level-2-2.jsonl',
    id: 2,
    instruction: 'Generate an API request...',
    input:
      'User: Can you move my appointment to March 26th with Dr. Lee?\nAI: Sure.\n' +
      "User: The appointment ID is 34567890.\nAPI-Request: [ModifyRegistration(appointment_id='34567890', " +
      "new_appointment_date='2023-03-26')]->success\nUser: Also check my health data.\nGenerate API Request:\n",
    expected_output: "API-Request: [QueryHealthData(user_id='J46801', start_time='2023-03-05 00:00:00')]",
  },
  {
    file: 'Calculator-level-1-1.jsonl',
    id: 0,
    instruction: 'Generate an API request...',
    input: 'User: Can you calculate (5+6)*3 for me?\nGenerate API Request:\n',
    expected_output: "API-Request: [Calculator(formula='(5+6)*3')]",
  },
];

/** Level-3 batch samples (`level-3-batch-inf.json`): grouped by sample_id, ToolSearcher steps in the text. */
export const apibankBatch = [
  {
    instruction: '...',
    input: '{"apiCode": "ToolSearcher"}\nUser: Query meeting of John.\nGenerate API Request: \n',
    output: "API-Request: [ToolSearcher(keywords='QueryMeeting')]",
    sample_id: 0,
    api_id: 0,
  },
  {
    instruction: '...',
    input:
      '{"apiCode": "ToolSearcher"}\nUser: Query meeting of John.\n' +
      "API-Request: [ToolSearcher(keywords='QueryMeeting')]->{'output': {'name': 'QueryMeeting'}}\n" +
      'Generate API Request: \n',
    output: "API-Request: [QueryMeeting(user_name='John')]",
    sample_id: 0,
    api_id: 1,
  },
];

/** MCP-style tasks over the weather server's tools/list. */
export const mcpTasks = [
  {
    id: 'wx-1',
    query: 'What is the forecast for Paris for the next 3 days?',
    tools: weatherServerTools.tools,
    reference_tools: ['get_forecast'],
    answer: 'Paris',
  },
  {
    question: 'Any weather alerts in CA, and the forecast for Los Angeles?',
    tools: weatherServerTools.tools,
    reference_tools: ['get_alerts', 'get_forecast'],
  },
  {
    prompt: 'Alerts for Texas, please.',
    tools: [{ name: 'weather/get_alerts', description: 'Alerts', inputSchema: { type: 'object' } }],
    reference_tools: ['weather/get_alerts'],
    meta: { source: 'mcp-sample' },
  },
];
