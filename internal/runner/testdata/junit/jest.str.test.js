const { upper, lower, pow } = require('./str');

test('top level', () => { expect(upper('a')).toBe('A'); });

describe('upper', () => {
  it('handles the empty string', () => { expect(upper('')).toBe(''); });
  describe('nested', () => {
    it('fails here', () => { expect(upper('a')).toBe('b'); });
  });
});

describe('lower', () => {
  it('handles the empty string', () => { expect(lower('')).toBe('x'); });
  it.each(['A', 'B'])('lowercases %s', (s) => { expect(lower(s)).toBe(s.toLowerCase()); });
  it.each([{ input: 'A', want: 'a' }])('returns $want for $input', ({ input, want }) => { expect(lower(input)).toBe(want); });
  test.each([[2, 3, 8]])('pow(%i, %i) = %i', (a, b, c) => { expect(pow(a, b)).toBe(c); });
  test.each`
    a    | b    | want
    ${1} | ${2} | ${1}
  `('pow $a $b is $want', ({ a, b, want }) => { expect(pow(a, b)).toBe(want); });
});

describe.each([['x'], ['y']])('with %s', (v) => {
  it('keeps it', () => { expect(v).toBe(v); });
});
