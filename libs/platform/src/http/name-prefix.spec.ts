import { likePrefixPattern } from './name-prefix';

describe('likePrefixPattern', () => {
  it('escapes the LIKE wildcards and the escape character, then matches any rest', () => {
    expect(likePrefixPattern('Demo')).toBe('Demo%');
    expect(likePrefixPattern('50%_off\\')).toBe('50\\%\\_off\\\\%');
    expect(likePrefixPattern('%')).toBe('\\%%');
  });
});
