/**
 * The baseline of `npm run bench:reads`: a bare Fastify handler that reads one row with `pg`
 * (the same single-row query as GET /metadata/{id}), with nothing else on the request path.
 * Run by the bench as its own process: DATABASE_URL, PORT; prints "listening" when ready.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/metadata/:id', async (request, reply) => {
    // The row GET /metadata/{id} reads: one metadata document by primary key.
    const { rows } = await pool.query('SELECT document FROM metadata_documents WHERE id = $1', [
      request.params.id,
    ]);
    if (rows.length === 0) return reply.code(404).send({ error: 'Not Found' });
    return rows[0].document;
  });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  console.log('listening');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
