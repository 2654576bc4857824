/** Blob endpoints: multipart upload into the content-addressed store, and downloads as octet streams. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CalcError } from '../calc/index.js';
import type { CalcService } from '../service/calc-service.js';
import { MAX_BLOB_BYTES } from '../store/store.js';
import { sendJson } from './model-route-kit.js';
import { problem } from './problems.js';
import { commonErrors, modelErrors, reply } from './schemas.js';

const blobParam = {
  type: 'object',
  properties: { blobId: { type: 'string', description: 'sha256:<hex>' } },
  required: ['blobId'],
} as const;

/** The `file` part of a multipart upload (other file parts are drained) and its media type. */
async function readUpload(req: FastifyRequest): Promise<{ data: Buffer; mediaType: string | undefined }> {
  if (!req.isMultipart())
    throw new CalcError('INVALID_ARGUMENT', 'send multipart/form-data with a `file` part');
  let data: Buffer | undefined;
  let fileType: string | undefined;
  let mediaType: string | undefined;
  for await (const part of req.parts({ limits: { fileSize: MAX_BLOB_BYTES, files: 1, fields: 4 } })) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        continue;
      }
      data = await part.toBuffer();
      fileType = part.mimetype;
    } else if (part.fieldname === 'mediaType' && typeof part.value === 'string') {
      mediaType = part.value;
    }
  }
  if (!data) throw new CalcError('INVALID_ARGUMENT', 'the multipart body has no `file` part');
  return { data, mediaType: mediaType ?? fileType };
}

export function registerBlobRoutes(app: FastifyInstance, calc: CalcService, keyed: boolean): void {
  const tags = ['blobs'];

  app.post(
    '/blobs',
    {
      schema: {
        tags,
        summary: 'Upload a blob (multipart: `file`, optional `mediaType`)',
        consumes: ['multipart/form-data'],
        response: {
          201: reply('{$blobId, $mediaType, $bytes}'),
          ...commonErrors,
          413: { description: `Over ${MAX_BLOB_BYTES} bytes` },
        },
      },
    },
    async (req, res) => {
      const { data, mediaType } = await readUpload(req);
      return sendJson(res, 201, await calc.uploadBlob(data, mediaType));
    },
  );

  app.get<{ Params: { blobId: string } }>(
    '/blobs/:blobId',
    {
      schema: {
        tags,
        summary: "A blob's bytes",
        params: blobParam,
        produces: ['application/octet-stream'],
        response: { 200: reply('The bytes'), ...commonErrors, 404: { description: 'No such blob' } },
      },
    },
    async (req, res) => {
      const blob = await calc.downloadBlob(req.params.blobId);
      return res.code(200).type(blob.mediaType).send(Buffer.from(blob.data, 'base64'));
    },
  );

  app.get<{ Params: { id: string; blobId: string } }>(
    '/models/:id/blobs/:blobId',
    {
      schema: {
        tags,
        summary: "A blob the model's current state references",
        params: {
          type: 'object',
          properties: { id: { type: 'string' }, blobId: { type: 'string' } },
          required: ['id', 'blobId'],
        },
        produces: ['application/octet-stream'],
        response: { 200: reply('The bytes'), ...modelErrors },
      },
    },
    async (req, res) => {
      const blob = await calc.downloadBlob(req.params.blobId, req.params.id);
      return res.code(200).type(blob.mediaType).send(Buffer.from(blob.data, 'base64'));
    },
  );

  app.post<{ Querystring: { apply?: boolean } }>(
    '/admin/blobs/gc',
    {
      schema: {
        tags,
        summary: 'Orphan blob report (our stores cannot enumerate blobs: supported:false)',
        querystring: { type: 'object', properties: { apply: { type: 'boolean', default: false } } },
        response: { 200: reply('{supported, orphans, applied}'), ...commonErrors },
      },
    },
    async (req, res) => {
      if (req.query.apply === true && !keyed) {
        const refused = problem(403, 'Deleting blobs needs a server started with MODELWORKS_API_KEY');
        return res.code(403).type(refused.contentType).send(refused.body);
      }
      return sendJson(res, 200, { supported: false, orphans: [], applied: false });
    },
  );
}
