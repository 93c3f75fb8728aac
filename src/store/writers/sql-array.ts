/**
 * A number or boolean array as PostgreSQL array text, for an `unnest($n::bigint[])`-style
 * parameter. node-postgres would write the same array itself, but quotes and regex-escapes every
 * element on the way (~8x the CPU), and the edge arrays run to thousands of elements per batch.
 * Numbers must be integers (ids, sequences): their decimal text is exact below 2^53.
 */
export function sqlArray(values: readonly number[] | readonly boolean[]): string {
  return `{${values.join(',')}}`;
}
