// Light or dark: the system's setting unless the person picked one with the header's switch (kept in
// localStorage). The page's colours follow `color-scheme` (globals.css: light-dark()).
export type ThemeChoice = "system" | "light" | "dark";

export const THEME_KEY = "negentropy.theme";
export const THEME_CHOICES: ThemeChoice[] = ["system", "light", "dark"];

export function storedTheme(value: string | null): ThemeChoice {
  return value === "light" || value === "dark" ? value : "system";
}

/** The scheme the page shows for a choice, given whether the system prefers dark. */
export function appliedTheme(choice: ThemeChoice, systemPrefersDark: boolean): "light" | "dark" {
  return choice === "system" ? (systemPrefersDark ? "dark" : "light") : choice;
}
