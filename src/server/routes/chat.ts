import { basename } from 'node:path';
import type { ErrorObject } from 'ajv';
import { Hono } from 'hono';
import type { JsonSchema } from '../../library/tool.js';
import { createAjv } from '../../library/ajv.js';
import { ContextOverflowError, type EngineInfo, type LlamaEngine } from '../../simulator/llama/engine.js';
import type { ChatMessage } from '../../simulator/model-responder.js';
import { ResponderBusyError } from '../../simulator/queue.js';
import { readJsonBody } from '../json-body.js';
import { httpProblem, problemResponse } from '../../http/problem-response.js';
import { json, PROBLEMS, problemDoc, type Operations } from '../openapi-parts.js';

/** Tokens an answer may take when the request names no max_tokens. */
export const DEFAULT_CHAT_MAX_TOKENS = 512;

const TEXT_PART = {
  type: 'object',
  required: ['type', 'text'],
  properties: { type: { const: 'text' }, text: { type: 'string' } },
};
const POSITIVE = { type: 'integer', minimum: 1 };

/** The subset of OpenAI's chat-completions request this route honours; anything else is refused by name. */
const REQUEST_SCHEMA = {
  type: 'object',
  required: ['messages'],
  additionalProperties: false,
  properties: {
    model: { type: 'string' },
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['role', 'content'],
        properties: {
          role: { enum: ['system', 'developer', 'user', 'assistant'] },
          content: { anyOf: [{ type: 'string' }, { type: 'array', items: TEXT_PART }] },
          name: { type: 'string' },
        },
        additionalProperties: false,
      },
    },
    max_tokens: POSITIVE,
    max_completion_tokens: POSITIVE,
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    seed: { type: 'integer' },
    n: { const: 1 },
    stream: { const: false },
    user: { type: 'string' },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: {
          type: 'object',
          required: ['schema'],
          properties: {
            name: { type: 'string' },
            schema: { type: ['object', 'boolean'] },
            strict: { type: ['boolean', 'null'] },
          },
        },
      },
      if: { properties: { type: { const: 'json_schema' } } },
      then: { required: ['type', 'json_schema'] },
    },
    guided_json: { type: ['object', 'boolean'] },
  },
};

interface ChatRequest {
  model?: string;
  messages: {
    role: 'system' | 'developer' | 'user' | 'assistant';
    content: string | { type: 'text'; text: string }[];
  }[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  seed?: number;
  response_format?: { type: 'text' | 'json_object' | 'json_schema'; json_schema?: { schema: JsonSchema } };
  guided_json?: JsonSchema;
}

const COMPLETION = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices', 'usage'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'message', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          message: {
            type: 'object',
            required: ['role', 'content'],
            properties: { role: { const: 'assistant' }, content: { type: 'string' } },
          },
          finish_reason: { enum: ['stop', 'length'] },
        },
      },
    },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
      properties: {
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        total_tokens: { type: 'integer' },
      },
    },
  },
};

const MODEL_LIST = {
  type: 'object',
  required: ['object', 'data'],
  properties: {
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'object', 'created', 'owned_by'],
        properties: {
          id: { type: 'string' },
          object: { const: 'model' },
          created: { type: 'integer' },
          owned_by: { type: 'string' },
        },
      },
    },
  },
};

/** The two routes as the served document declares them (`serve --model`). */
export const chatOperations: Operations = {
  '/v1/models': {
    get: {
      operationId: 'listModels',
      tags: ['Model'],
      summary: 'The loaded GGUF model, as OpenAI lists models',
      responses: { '200': json('The one model.', MODEL_LIST), '401': PROBLEMS['401'] },
    },
  },
  '/v1/chat/completions': {
    post: {
      operationId: 'createChatCompletion',
      tags: ['Model'],
      summary: 'A chat completion from the loaded model; JSON output constrained to a schema when one is given',
      description:
        "The subset of OpenAI's request this route honours (no streaming, n = 1); any other member is refused by " +
        'name. `response_format` json_schema or json_object, ' +
        "or vLLM's `guided_json`, constrain the output by grammar.",
      requestBody: { required: true, content: { 'application/json': { schema: REQUEST_SCHEMA } } },
      responses: {
        '200': json('The completion.', COMPLETION),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '413': PROBLEMS['413'],
        '500': problemDoc('The model could not be loaded, or generation failed.'),
        '503': problemDoc('The model is busy (Retry-After says when to come back) or closing.'),
      },
    },
  },
};

/**
 * `POST /v1/chat/completions` and `GET /v1/models` backed by a local GGUF model: the OpenAI-compatible face of the
 * engine the llama responder uses, so that another ToolEnv (or any OpenAI client) can use this one as its remote
 * responder. JSON output is grammar-constrained (`response_format` json_schema or json_object, or vLLM's
 * `guided_json`); streaming is not offered. A full queue answers 503 with Retry-After.
 */
export function chatRoutes(engine: LlamaEngine): { routes: Hono; operations: Operations } {
  const validate = createAjv().compile<ChatRequest>(REQUEST_SCHEMA);
  const modelId = basename(engine.options.model);
  const app = new Hono();

  app.get('/v1/models', (c) =>
    c.json({ object: 'list', data: [{ id: modelId, object: 'model', created: 0, owned_by: 'toolenv' }] }),
  );

  app.post('/v1/chat/completions', async (c) => {
    const body = await readJsonBody(c);
    if (!validate(body)) throw invalid(describe(validate.errors ?? []));
    if (body.response_format?.type === 'json_schema' && body.guided_json !== undefined)
      throw invalid('give the schema once: response_format json_schema or guided_json, not both');

    let info: EngineInfo;
    try {
      info = await engine.load();
    } catch (error) {
      return problemResponse(500, (error as Error).message, { title: 'Model unavailable' });
    }
    const maxTokens = Math.min(
      body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_CHAT_MAX_TOKENS,
      info.contextSize,
    );

    const format = body.guided_json !== undefined ? 'json_schema' : (body.response_format?.type ?? 'text');
    const messages: ChatMessage[] = body.messages.map((m) => ({
      role: m.role === 'developer' ? 'system' : m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((part) => part.text).join(''),
    }));
    try {
      const generation = await engine.generate({
        messages,
        schema: body.guided_json ?? body.response_format?.json_schema?.schema,
        text: format === 'text',
        maxTokens,
        temperature: body.temperature ?? 1,
        seed: (body.seed ?? 0) >>> 0,
        signal: c.req.raw.signal,
      });
      return c.json({
        id: `chatcmpl-${crypto.randomUUID()}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: modelId,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: generation.text },
            finish_reason: generation.truncated ? 'length' : 'stop',
          },
        ],
        usage: {
          prompt_tokens: generation.promptTokens,
          completion_tokens: generation.completionTokens,
          total_tokens: generation.promptTokens + generation.completionTokens,
        },
      });
    } catch (error) {
      if (error instanceof ResponderBusyError) {
        return problemResponse(503, error.message, {
          title: 'Model busy',
          headers: { 'retry-after': String(error.retryAfterSeconds) },
        });
      }
      if (error instanceof ContextOverflowError) throw invalid(error.message);
      // Stopped on purpose (the client went away, the server is closing): nothing to log.
      if (engine.closed || c.req.raw.signal.aborted)
        return problemResponse(503, (error as Error).message, { title: 'Model unavailable' });
      throw error;
    }
  });
  return { routes: app, operations: chatOperations };
}

function describe(errors: ErrorObject[]): string {
  return errors
    .slice(0, 5)
    .map((e) => {
      const where = e.instancePath || '(body)';
      if (where === '/stream') return 'stream: streaming is not offered; leave stream out or send false';
      if (e.keyword === 'additionalProperties')
        return `${where} has an unsupported member ${JSON.stringify(e.params.additionalProperty)}`;
      return `${where} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}

function invalid(detail: string) {
  return httpProblem(400, detail, { title: 'Invalid chat request' });
}
