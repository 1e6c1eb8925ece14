import { DEFAULT_THEME, luminance, mergeMantineTheme } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import { cssVariablesResolver, theme } from './theme.ts';

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe('theme contrast', () => {
  const merged = mergeMantineTheme(DEFAULT_THEME, theme);
  const vars = cssVariablesResolver(merged);

  it('gives every colour a text and light-variant colour at WCAG AA in the light scheme', () => {
    for (const name of ['orange', 'green', 'yellow', 'teal', 'red', 'blue', 'indigo', 'cyan', 'lime']) {
      const shades = merged.colors[name];
      expect(contrast(vars.light[`--mantine-color-${name}-text`], '#ffffff'), name).toBeGreaterThanOrEqual(4.5);
      expect(contrast(vars.light[`--mantine-color-${name}-light-color`], shades[1]), name).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('keeps text colours at AA on the dark body', () => {
    for (const name of ['orange', 'green', 'red', 'blue', 'indigo', 'grape']) {
      expect(contrast(vars.dark[`--mantine-color-${name}-text`], merged.colors.dark[7]), name).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('uses shade 8 of indigo (6:1 on white) as the primary colour', () => {
    expect(contrast(merged.colors.indigo[8], '#ffffff')).toBeGreaterThan(4.5);
  });
});
