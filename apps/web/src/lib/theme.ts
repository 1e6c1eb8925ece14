import {
  Anchor,
  createTheme,
  darken,
  keys,
  lighten,
  localStorageColorSchemeManager,
  luminance,
  type CSSVariablesResolver,
  type MantineTheme,
} from '@mantine/core';

/**
 * WCAG AA (4.5:1 for body text) in both schemes. Mantine's defaults fall short on white: indigo.6 is 4.32:1,
 * the dimmed grey (gray.6) 3.3:1, red.6 3.6:1, and several 'light' badges and buttons (orange, green, yellow
 * text on their tint) 3.6–3.8:1. Shade 8 is the filled and text shade in the light scheme (indigo.8 is 6.1:1 on
 * white); autoContrast puts dark text on the light filled colours (yellow, lime) instead of white.
 */
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 8, dark: 8 },
  autoContrast: true,
  defaultRadius: 'md',
  components: {
    // A link inside a sentence must not rely on colour alone (WCAG 1.4.1): underlined unless a place (the
    // navigation, a card title) says otherwise.
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
  },
});

const AA = 4.5;
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
/** Darkens (or lightens) `color` in small steps until it reaches AA against `background`. */
function toAA(color: string, background: string, direction: 'darker' | 'lighter'): string {
  let value = color;
  for (let step = 0; step < 20 && contrast(value, background) < AA; step += 1) {
    value = direction === 'darker' ? darken(value, 0.08) : lighten(value, 0.08);
  }
  return value;
}

/** Per colour: text and 'light' variant colours that reach AA on the backgrounds they are drawn on. */
function colorVariables(t: MantineTheme, scheme: 'light' | 'dark'): Record<string, string> {
  const out: Record<string, string> = {};
  const body = scheme === 'light' ? t.white : t.colors.dark[7];
  for (const name of keys(t.colors)) {
    const shades = t.colors[name];
    if (!Array.isArray(shades) || name === 'dark' || name === 'gray') continue;
    if (scheme === 'light') {
      // `c="orange"` text on white and on the tinted 'light' background (shade 1).
      out[`--mantine-color-${name}-text`] = toAA(toAA(shades[8], body, 'darker'), shades[0], 'darker');
      out[`--mantine-color-${name}-light-color`] = toAA(shades[9], shades[1], 'darker');
    } else {
      out[`--mantine-color-${name}-text`] = toAA(shades[4], body, 'lighter');
    }
  }
  return out;
}

/** Secondary text, error text and links darker (light) or lighter (dark) than Mantine's defaults. */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    ...colorVariables(t, 'light'),
    // gray.7 on white: 8.1:1; on the tinted bubbles and cards still above 7:1.
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-6)',
    '--mantine-color-anchor': 'var(--mantine-color-indigo-8)',
  },
  dark: {
    ...colorVariables(t, 'dark'),
    // dark.1 on the dark body (dark.7): 7.6:1.
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
    '--mantine-color-anchor': 'var(--mantine-color-indigo-3)',
  },
});

/** Light, dark or 'auto' (follow the system), remembered per browser. */
export const colorSchemeManager = localStorageColorSchemeManager({ key: 'sales-agent-color-scheme' });
