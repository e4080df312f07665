import { IsInt, IsOptional, IsString } from 'class-validator';
import { Type } from 'class-transformer';
import { AppError } from '@app/common';
import { BodyValidationPipe } from './body-validation.pipe';

class OptionalQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}

class RequiredQuery {
  @IsString()
  cursor!: string;
}

const query = (metatype: new () => object) => ({ type: 'query' as const, metatype });

describe('BodyValidationPipe on queries', () => {
  it('answers an empty query with the DTO instance, as validating it does', async () => {
    const pipe = new BodyValidationPipe();
    for (let i = 0; i < 2; i += 1) {
      const answer = await pipe.transform({}, query(OptionalQuery));
      expect(answer).toBeInstanceOf(OptionalQuery);
      expect(answer).toStrictEqual(new OptionalQuery());
    }
    // Fastify's query object has no prototype.
    expect(await pipe.transform(Object.create(null), query(OptionalQuery))).toBeInstanceOf(
      OptionalQuery,
    );
  });

  it('refuses an empty query every time when the DTO has a required field', async () => {
    const pipe = new BodyValidationPipe();
    for (let i = 0; i < 2; i += 1) {
      await expect(pipe.transform({}, query(RequiredQuery))).rejects.toBeInstanceOf(AppError);
    }
  });

  it('answers a query it accepted before as validating it does: transformed', async () => {
    const pipe = new BodyValidationPipe();
    for (let i = 0; i < 2; i += 1) {
      const answer = await pipe.transform({ limit: '5' }, query(OptionalQuery));
      expect(answer).toBeInstanceOf(OptionalQuery);
      expect(answer).toStrictEqual(Object.assign(new OptionalQuery(), { limit: 5 }));
    }
    await expect(pipe.transform({ limit: '5' }, query(RequiredQuery))).rejects.toBeInstanceOf(
      AppError,
    );
  });

  it('still validates and transforms a query that says something else', async () => {
    const pipe = new BodyValidationPipe();
    await pipe.transform({}, query(OptionalQuery));
    expect(await pipe.transform({ limit: '5' }, query(OptionalQuery))).toMatchObject({ limit: 5 });
    for (let i = 0; i < 2; i += 1) {
      await expect(
        pipe.transform({ limit: ['5', '6'] }, query(OptionalQuery)),
      ).rejects.toMatchObject({ message: expect.stringContaining('limit') });
    }
    await expect(pipe.transform({ limit: 'x' }, query(OptionalQuery))).rejects.toMatchObject({
      message: expect.stringContaining('limit'),
    });
    await expect(pipe.transform({ other: '1' }, query(OptionalQuery))).rejects.toMatchObject({
      message: expect.stringContaining('other is not an accepted field'),
    });
  });
});
