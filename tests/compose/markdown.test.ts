/**
 * Catalog text in a markdown mirror is literal text, whatever it holds (docs/decisions.md
 * "Catalog text is escaped, not interpreted"): what each kind of markup turns into.
 */
import { describe, expect, it } from 'vitest';
import { escapeMarkdown } from '../../src/compose/markdown.ts';

describe('escapeMarkdown', () => {
  it.each([
    ['a plain description', 'A compression library', 'A compression library'],
    ['a version is no list item', '1.2.3', '1.2.3'],
    ['a dotted name', 'llama.cpp', 'llama.cpp'],
    ['a link', '[here](javascript:alert(1))', '\\[here\\](javascript:alert(1))'],
    ['an image', '![x](https://example.org/x.png)', '!\\[x\\](https://example.org/x.png)'],
    ['raw HTML', '<script>alert(1)</script>', '\\<script\\>alert(1)\\</script\\>'],
    ['an autolink', '<javascript:alert(1)>', '\\<javascript:alert(1)\\>'],
    ['emphasis and strikethrough', '*a* _b_ ~~c~~', '\\*a\\* \\_b\\_ \\~\\~c\\~\\~'],
    ['code', '`rm -rf /`', '\\`rm -rf /\\`'],
    ['a table cell', 'a | b', 'a \\| b'],
    ['an entity', 'AT&amp;T', 'AT\\&amp;T'],
    ['a backslash', 'C:\\path', 'C:\\\\path'],
    ['a heading', '# Title', '\\# Title'],
    ['a heading with no text', '#', '\\#'],
    ['a hash inside', 'C# bindings', 'C# bindings'],
    ['a bullet', '- item', '\\- item'],
    ['a plus bullet', '+ item', '\\+ item'],
    ['a thematic break', '---', '\\---'],
    ['a setext underline', '===', '\\==='],
    ['a number that is no list item', '-1 is negative', '-1 is negative'],
    ['an ordered list item', '1. first', '1\\. first'],
    ['an ordered list item with a parenthesis', '12) twelfth', '12\\) twelfth'],
    ['a blockquote', '> quoted', '\\> quoted'],
    ['lines joined, spaces collapsed and trimmed', '  one\r\ntwo\n\n  three  ', 'one two three'],
    ['a line that would start a heading once joined stays inside', 'text\n# heading', 'text # heading'],
    ['control characters and a lone surrogate dropped', 'a\u0000b\u0007c\ud800d', 'abcd'],
    ['tab as a space', 'a\tb', 'a b'],
    ['non-ASCII kept', 'zlib — ünïcødé ✓', 'zlib — ünïcødé ✓'],
  ])('%s', (_what, text, escaped) => {
    expect(escapeMarkdown(text)).toBe(escaped);
  });
});
