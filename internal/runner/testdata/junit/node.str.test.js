const { describe, it, test } = require('node:test');
const assert = require('node:assert');
const { upper, lower } = require('../str');

test('top level', () => { assert.strictEqual(upper('a'), 'A'); });

describe('upper', () => {
  it('handles the empty string', () => { assert.strictEqual(upper(''), ''); });
  describe('nested', () => {
    it('fails here', () => { assert.strictEqual(upper('a'), 'b'); });
  });
});

describe('lower', () => {
  it('handles the empty string', () => { assert.strictEqual(lower(''), 'x'); });
  for (const s of ['A', 'B']) {
    it(`lowercases ${s}`, () => { assert.strictEqual(lower(s), s.toLowerCase()); });
  }
});
