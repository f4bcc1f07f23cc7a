import swagger from '@fastify/swagger';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';

/**
 * Collects the schemas of every route registered after it into an OpenAPI 3 document, served at
 * /openapi.json, and renders the same document as a plain HTML reference at /reference.
 */
export async function registerOpenApi(app: App, _ctx: AppContext): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Namazu data API',
        version: '2',
        description:
          'JMA telegram lists, bodies and contracts. Credentials: `Authorization: Bearer ATn.…`, ' +
          '`Authorization: DPoP ATn.…` with a DPoP proof, or an API key (`Authorization: Basic base64("AKe.…:")` ' +
          'or the `key` query parameter). Every JSON response carries responseId, responseTime and status.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKeyBasic: { type: 'http', scheme: 'basic' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'key' },
        },
      },
      security: [{ bearer: [] }, { apiKeyBasic: [] }, { apiKeyQuery: [] }],
    },
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  let page: string | undefined;
  app.get('/reference', { schema: { hide: true } }, async (_request, reply) => {
    page ??= renderReference(app.swagger() as OpenApiDocument);
    return reply.type('text/html; charset=utf-8').send(page);
  });
}

interface Operation {
  summary?: string;
  description?: string;
  deprecated?: boolean;
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  responses?: Record<string, { description?: string }>;
}
interface OpenApiDocument {
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A readable, dependency-free HTML rendering of the OpenAPI document. */
export function renderReference(doc: OpenApiDocument): string {
  const sections = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => {
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${escapeHtml(p.description ?? '')}</td></tr>`,
        )
        .join('');
      const statuses = Object.keys(op.responses ?? {}).join(', ');
      return `<section><h2><code>${method.toUpperCase()} ${escapeHtml(path)}</code>${op.deprecated ? ' <small>(deprecated)</small>' : ''}</h2>
<p><strong>${escapeHtml(op.summary ?? '')}</strong></p><p>${escapeHtml(op.description ?? '')}</p>
${params ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>meaning</th></tr>${params}</table>` : ''}
${statuses ? `<p>Responses: ${escapeHtml(statuses)}</p>` : ''}</section>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #ddd;margin-top:1.5rem}</style></head><body>
<h1>${escapeHtml(doc.info.title)}</h1><p>${escapeHtml(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
${sections.join('\n')}</body></html>`;
}
