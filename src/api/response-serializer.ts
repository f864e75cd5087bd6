import fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as checkedSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Serialize = (data: unknown) => string;
type CompilerInput = Parameters<typeof checkedSerializerCompiler>[0];

/**
 * A route's answer written from its zod schema's JSON Schema by fast-json-stringify (Fastify's own
 * serializer), or undefined when the schema has a part JSON Schema cannot say (a transform).
 *
 * fast-json-stringify writes only the properties the schema names, so a view that carried a field
 * its schema leaves out (a secret) still could not send it, as zod's parse strips it. It does not
 * check the values: the views' types and the API tests do that (below). A lookup's answer takes it
 * 2.7-3.1 µs, where zod's parse and JSON.stringify took 5.1-6.4 (measured in a loop).
 */
export function compileResponseSerializer(schema: unknown): Serialize | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  let jsonSchema: object;
  try {
    jsonSchema = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw', cycles: 'throw', reused: 'inline' });
  } catch {
    return undefined;
  }
  return fastJson(jsonSchema as Parameters<typeof fastJson>[0]);
}

/**
 * Fastify's serializer compiler for zod response schemas: fast-json-stringify where the schema allows
 * it, else fastify-type-provider-zod's parse-then-stringify. Compiled on a route's first answer, not
 * at start-up: most of the ~150 routes answer nothing in a given process's first minutes, and
 * compiling them all would slow every start (the test suite starts an app per file).
 *
 * With `crossCheck` (NODE_ENV=test), every answer is also written the checked way and the two must
 * be the same text: the whole test suite then proves the two agree on every answer it sees, and an
 * answer its schema does not allow fails as it did before.
 */
export function createResponseSerializerCompiler({ crossCheck }: { crossCheck: boolean }): FastifySerializerCompiler<unknown> {
  return (input) => {
    let serialize: Serialize | undefined;
    return (data: unknown) => {
      serialize ??= compiled(input as CompilerInput, crossCheck);
      return serialize(data);
    };
  };
}

function compiled(input: CompilerInput, crossCheck: boolean): Serialize {
  const fast = compileResponseSerializer(input.schema);
  if (!fast) return checkedSerializerCompiler(input);
  if (!crossCheck) return fast;
  const checked = checkedSerializerCompiler(input);
  return (data) => {
    const expected = checked(data);
    const written = fast(data);
    if (written !== expected) {
      throw new Error(`${input.method} ${input.url}: fast-json-stringify wrote ${written} where the checked serializer wrote ${expected}`);
    }
    return written;
  };
}
