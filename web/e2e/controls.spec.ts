// Issue 45.4: Stop without error text or an empty bubble, auto-scroll to the real end, the @ button, dark mode
// following the system with a switch, tooltips on touch.
import { expect, test, type Page } from "@playwright/test";
import { ask, keepScreenshot, lastTurn, openChat, stack } from "./support";

const MULTI_HOP = "Which researcher created the system that Project Helios depends on for its nearest-neighbour lookups?";

test("Stop: the request is aborted, no error text, no empty bubble, the question back in the composer", async ({ page }) => {
  await openChat(page, stack().servers.main);
  // hold the request so Stop lands while the run is in flight (the server's cancel is tests/test_web_threads.py)
  await page.route("**/api/agent", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await route.continue().catch(() => undefined);
  });
  const question = `${MULTI_HOP} @project_docs @papers`;
  const input = page.getByTestId("composer-input");
  await input.fill(question);
  await page.keyboard.press("Escape");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("page")).toHaveAttribute("data-running", "true");
  await expect(input).toHaveValue("");
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("page")).toHaveAttribute("data-running", "false");
  await page.unroute("**/api/agent");
  await expect(page.getByTestId("error")).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText(/signal is aborted|AbortError|request failed/i);
  await expect(page.getByTestId("agent-message")).toHaveCount(0); // no empty bubble
  await expect(page.getByTestId("turn")).toHaveCount(0);
  await expect(input).toHaveValue(question); // nothing came back: the question is not lost
  await keepScreenshot(page, "40-stopped");
  // the conversation goes on, with only the question sent next
  let sent: Record<string, any> = {};
  await ask(page, "What does Project Helios depend on for nearest-neighbour lookups? @project_docs", (body) => (sent = body));
  expect(sent.messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(1);
  await expect(lastTurn(page).getByTestId("answer-text")).toContainText("Aurora Vector Engine");
});

test("auto-scroll: the end of the answer is in view, above the composer", async ({ page }) => {
  await page.setViewportSize({ width: 1000, height: 560 });
  await openChat(page, stack().servers.main);
  await ask(page, `${MULTI_HOP} @project_docs @papers`);
  await ask(page, `Who leads Project Helios and which engine does it depend on? @project_docs @papers`);
  const conversation = page.getByTestId("conversation");
  await expect.poll(() => conversation.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
  await expect.poll(() => conversation.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThan(2);
  const end = await lastTurn(page).getByTestId("agent-message").boundingBox();
  const composer = await page.locator("form.composer").boundingBox();
  expect(end && composer && end.y + end.height).toBeLessThanOrEqual((composer?.y ?? 0) + 1);
  await keepScreenshot(page, "41-scrolled-to-the-end");
});

test("the @ button opens the mention popover at the caret", async ({ page }) => {
  await openChat(page, stack().servers.main);
  const input = page.getByTestId("composer-input");
  await input.fill("What does Project Helios depend on?");
  await page.getByTestId("mention-button").click();
  const popover = page.getByTestId("mention-popover");
  await expect(popover).toBeVisible();
  await expect(input).toBeFocused();
  await expect(input).toHaveValue("What does Project Helios depend on? @");
  await expect(input).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.type("proj");
  await page.keyboard.press("Enter");
  await expect(popover).toBeHidden();
  await expect(input).toHaveValue("What does Project Helios depend on? @project_docs ");
});

const DARK_BACKGROUND = "rgb(18, 21, 27)";
const LIGHT_BACKGROUND = "rgb(246, 247, 249)";

function background(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
}

test("dark mode follows the system; the switch overrides it and is remembered", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await openChat(page, stack().servers.main);
  const shown = page.getByTestId("page");
  await expect(shown).toHaveAttribute("data-theme-shown", "dark");
  expect(await background(page)).toBe(DARK_BACKGROUND);
  await keepScreenshot(page, "42-dark");
  const themes = page.getByTestId("theme-switch");
  await themes.getByRole("button", { name: "Light" }).click();
  await expect(shown).toHaveAttribute("data-theme-shown", "light");
  expect(await background(page)).toBe(LIGHT_BACKGROUND);
  await page.reload();
  await expect(shown).toHaveAttribute("data-ready", "true");
  await expect(themes.getByRole("button", { name: "Light" })).toHaveAttribute("aria-pressed", "true");
  expect(await background(page)).toBe(LIGHT_BACKGROUND);
  await themes.getByRole("button", { name: "System" }).click();
  expect(await background(page)).toBe(DARK_BACKGROUND);
  await page.emulateMedia({ colorScheme: "light" }); // the system changes its mind: the page follows
  await expect(shown).toHaveAttribute("data-theme-shown", "light");
  expect(await background(page)).toBe(LIGHT_BACKGROUND);
});

test("on touch, a tap shows an entry's tooltip and a second tap picks it", async ({ browser }) => {
  const context = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 800 } });
  const page = await context.newPage();
  try {
    await openChat(page, stack().servers.main);
    const input = page.getByTestId("composer-input");
    await input.tap();
    await page.keyboard.type("Status? @");
    const popover = page.getByTestId("mention-popover");
    await expect(popover).toBeVisible();
    const option = popover.locator('[data-corpus="team_notes"]');
    await option.tap();
    const tooltip = page.getByTestId("mention-tooltip").filter({ hasText: "Team Notes" }).first();
    await expect(tooltip).toBeVisible();
    await expect(tooltip).toContainText("search and ask questions");
    await expect(input).toHaveValue("Status? @"); // nothing picked yet
    await keepScreenshot(page, "43-touch-tooltip");
    await option.tap();
    await expect(input).toHaveValue("Status? @team_notes ");
    // the composer's own hint: a tap opens it, another closes it
    await page.getByTestId("strict-scope-info").tap();
    const hint = page.getByTestId("strict-scope-info-tooltip").first();
    await expect(hint).toContainText("Cross-corpus expansion stays inside the mentioned corpora.");
    await page.getByTestId("strict-scope-info").tap();
    await expect(hint).toBeHidden();
  } finally {
    await context.close();
  }
});
