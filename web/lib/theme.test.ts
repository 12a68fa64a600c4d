import { describe, expect, it } from "vitest";
import { appliedTheme, storedTheme } from "./theme";

describe("theme", () => {
  it("follows the system until a person picks light or dark", () => {
    expect(appliedTheme("system", true)).toBe("dark");
    expect(appliedTheme("system", false)).toBe("light");
    expect(appliedTheme("light", true)).toBe("light");
    expect(appliedTheme("dark", false)).toBe("dark");
  });

  it("reads anything but light or dark from storage as the system's setting", () => {
    expect(storedTheme("dark")).toBe("dark");
    expect(storedTheme(null)).toBe("system");
    expect(storedTheme("purple")).toBe("system");
  });
});
