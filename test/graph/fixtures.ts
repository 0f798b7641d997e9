/**
 * A small library with known dependencies, imported from OpenAPI documents the way real ones are: a pet store and a
 * vet API of one provider, an unrelated catalog whose generic fields (`id`, `name`, `status`) must not connect to
 * anything, and an API whose only dependency is declared through OpenAPI `links`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importOpenapi } from '../../src/library/importers/openapi.js';
import { LibraryStore } from '../../src/library/store.js';
import { tempDir } from '../fixtures/tools.js';

const json = (schema: unknown, status = '200') => ({
  [status]: { description: 'ok', content: { 'application/json': { schema } } },
});
const body = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const pathParam = (name: string, type = 'integer') => ({
  name,
  in: 'path',
  required: true,
  schema: { type, ...(type === 'integer' ? { format: 'int64' } : {}) },
});
const query = (name: string, required: boolean, schema: unknown = { type: 'integer', format: 'int64' }) => ({
  name,
  in: 'query',
  required,
  schema,
});
const doc = (provider: string, service: string, paths: unknown, extra: Record<string, unknown> = {}) => ({
  openapi: '3.0.3',
  info: { title: `${provider} ${service}`, version: '1.0.0', 'x-providerName': provider, 'x-serviceName': service },
  servers: [{ url: `https://${provider}/${service}` }],
  paths,
  ...extra,
});

const Pet = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'integer', format: 'int64' },
    name: { type: 'string' },
    status: { type: 'string', enum: ['available', 'pending', 'sold'] },
    category: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } } },
    tags: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } } },
    },
  },
};
const Order = {
  type: 'object',
  properties: {
    id: { type: 'integer', format: 'int64' },
    petId: { type: 'integer', format: 'int64' },
    status: { type: 'string' },
  },
};

export const pets = doc('petstore.test', 'pets', {
  '/pets': {
    get: {
      operationId: 'listPets',
      parameters: [query('limit', false, { type: 'integer' })],
      responses: json({ type: 'array', items: Pet }),
    },
    post: {
      operationId: 'addPet',
      requestBody: body({
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, status: { type: 'string' } },
      }),
      responses: json(Pet, '201'),
    },
  },
  '/pets/findByStatus': {
    get: {
      operationId: 'findPetsByStatus',
      parameters: [query('status', true, { type: 'string' })],
      responses: json({ type: 'array', items: Pet }),
    },
  },
  '/pets/{petId}': {
    get: { operationId: 'getPetById', parameters: [pathParam('petId')], responses: json(Pet) },
    put: {
      operationId: 'updatePet',
      parameters: [pathParam('petId')],
      requestBody: body({ type: 'object', properties: { name: { type: 'string' } } }),
      responses: json(Pet),
    },
    delete: {
      operationId: 'deletePet',
      parameters: [pathParam('petId')],
      responses: { '204': { description: 'deleted' } },
    },
  },
  '/pets/{petId}/photos': {
    get: {
      operationId: 'listPhotos',
      parameters: [pathParam('petId')],
      responses: json({
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'integer' }, url: { type: 'string' } } },
      }),
    },
  },
  '/store/orders': {
    get: {
      operationId: 'listOrders',
      parameters: [query('petId', false)],
      responses: json({ type: 'array', items: Order }),
    },
    post: {
      operationId: 'placeOrder',
      requestBody: body({
        type: 'object',
        required: ['petId'],
        properties: { petId: { type: 'integer', format: 'int64' }, quantity: { type: 'integer' } },
      }),
      responses: json(Order),
    },
  },
  '/store/orders/{orderId}': {
    get: { operationId: 'getOrder', parameters: [pathParam('orderId')], responses: json(Order) },
  },
  '/store/inventory': {
    get: {
      operationId: 'getInventory',
      responses: json({ type: 'object', additionalProperties: { type: 'integer' } }),
    },
  },
});

export const vets = doc('petstore.test', 'vets', {
  '/vets': {
    get: {
      operationId: 'listVets',
      responses: json({
        type: 'array',
        items: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, name: { type: 'string' } } },
      }),
    },
  },
  '/visits': {
    post: {
      operationId: 'scheduleVisit',
      requestBody: body({
        type: 'object',
        required: ['petId', 'vetId'],
        properties: { petId: { type: 'integer', format: 'int64' }, vetId: { type: 'integer', format: 'int64' } },
      }),
      responses: json({ type: 'object', properties: { id: { type: 'integer' } } }, '201'),
    },
  },
  '/clinics': { get: { operationId: 'listClinics', responses: { '200': { description: 'clinics, undescribed' } } } },
  '/clinics/{clinicId}': {
    get: {
      operationId: 'getClinic',
      parameters: [pathParam('clinicId', 'string')],
      responses: { '200': { description: 'a clinic' } },
    },
  },
});

export const catalog = doc('catalog.test', 'shop', {
  '/products': {
    get: {
      operationId: 'listProducts',
      responses: json({
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'integer', format: 'int64' },
            name: { type: 'string' },
            status: { type: 'string' },
            type: { type: 'string' },
          },
        },
      }),
    },
  },
  '/labels/{id}': {
    get: {
      operationId: 'getLabel',
      parameters: [pathParam('id')],
      responses: json({ type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } } }),
    },
  },
  '/shipments': {
    get: {
      operationId: 'listShipments',
      parameters: [query('status', true, { type: 'string' }), query('name', true, { type: 'string' })],
      responses: json({ type: 'array', items: { type: 'object', properties: { tracking: { type: 'string' } } } }),
    },
  },
});

export const linked = doc(
  'links.test',
  'accounts',
  {
    '/users': {
      post: {
        operationId: 'createUser',
        requestBody: body({ type: 'object', properties: { email: { type: 'string' } } }),
        responses: {
          '201': {
            description: 'created',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { uuid: { type: 'string' }, email: { type: 'string' } } },
              },
            },
            links: {
              GetMember: { operationId: 'getMember', parameters: { memberRef: '$response.body#/uuid' } },
              Audit: { $ref: '#/components/links/Audit' },
            },
          },
        },
      },
    },
    '/members/{memberRef}': {
      get: {
        operationId: 'getMember',
        parameters: [pathParam('memberRef', 'string')],
        responses: json({ type: 'object', properties: { email: { type: 'string' } } }),
      },
    },
    '/audit/{entry}': {
      get: {
        operationId: 'readAudit',
        parameters: [pathParam('entry', 'string')],
        responses: json({ type: 'object' }),
      },
    },
  },
  {
    components: {
      links: { Audit: { operationRef: '#/paths/~1audit~1{entry}/get', parameters: { entry: '$response.body#/uuid' } } },
    },
  },
);

/** The tool id the importer gives an operation of one of these documents. */
export const id = (api: string, operationId: string) => `${api.replace(/[^A-Za-z0-9]+/g, '_')}__${operationId}`;

/** Writes the documents to a folder, imports them into a fresh library, and returns the library directory. */
export async function writeGraphFixtureLibrary(documents: unknown[] = [pets, vets, catalog, linked]): Promise<string> {
  const source = join(tempDir('toolenv-graph-src-'), 'docs');
  mkdirSync(source);
  documents.forEach((d, i) => writeFileSync(join(source, `${i}.json`), JSON.stringify(d)));
  const dir = tempDir('toolenv-graph-lib-');
  const store = LibraryStore.openWritable(dir);
  store.write(await importOpenapi(source));
  store.close();
  return dir;
}
