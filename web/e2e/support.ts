// Shared steps of the browser suite: the stack's URLs and ids, asking through the real composer, reading
// the AG-UI stream the page received, and keeping a screenshot of every case.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page, type Route } from "@playwright/test";

export interface Stack {
  servers: { main: string; legacy: string; fault: string };
  corpora: Record<string, string>;
  dsn: string;
}

const ARTIFACTS = path.resolve(__dirname, "artifacts");
const REPO_ROOT = path.resolve(__dirname, "..", "..");
const AXE_SCRIPT = require.resolve("axe-core/axe.min.js");
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

export function stack(): Stack {
  const file = process.env.NEGENTROPY_E2E_STATE;
  if (!file) throw new Error("NEGENTROPY_E2E_STATE is unset: run the suite through playwright.config.ts");
  return JSON.parse(readFileSync(file, "utf-8")) as Stack;
}

export async function openChat(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId("page")).toHaveAttribute("data-ready", "true");
}

export function lastTurn(page: Page): Locator {
  return page.getByTestId("turn").last();
}

export interface AgentEvent {
  type: string;
  [key: string]: unknown;
}

/** Parse an AG-UI SSE body into its events. */
export function sseEvents(body: string): AgentEvent[] {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as AgentEvent);
}

type BodyEdit = (body: Record<string, any>) => Record<string, any>;

/** Run ``trigger`` (a click that starts a run) and return the events of the stream the page received.
 * The browser cannot hand a streamed fetch body to the test, so the route passes the real response on
 * after reading it; ``edit`` may change the request body first (a forged forwardedProps). */
export async function captureRun(page: Page, trigger: () => Promise<void>, edit?: BodyEdit): Promise<AgentEvent[]> {
  let body: string | null = null;
  const handler = async (route: Route) => {
    const request = route.request().postDataJSON() as Record<string, any>;
    const response = await route.fetch({ postData: JSON.stringify(edit ? edit(request) : request), timeout: 200_000 });
    const text = await response.text();
    await route.fulfill({ response, body: text });
    body = text;
  };
  await page.route("**/api/agent", handler);
  try {
    await trigger();
    await expect.poll(() => body !== null, { timeout: 200_000 }).toBe(true);
    await expect(page.getByTestId("page")).toHaveAttribute("data-running", "false");
  } finally {
    await page.unroute("**/api/agent", handler);
  }
  return sseEvents(body ?? "");
}

/** Type ``text`` into the composer and send it; returns the run's events once the page is idle again. */
export async function ask(page: Page, text: string, edit?: BodyEdit): Promise<AgentEvent[]> {
  const input = page.getByTestId("composer-input");
  await input.fill(text);
  await page.keyboard.press("Escape"); // a mention at the end opens the popover; sending does not need it
  return captureRun(page, () => page.getByTestId("send").click(), edit);
}

/** Click a button that starts a run (approve / reject) and wait for it. */
export async function clickAndRun(page: Page, button: Locator): Promise<AgentEvent[]> {
  return captureRun(page, () => button.click());
}

export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** What e2e/evidence.py reads from the database: "chunk" (a corpus's first chunk), "audit" (the web channel's newest
 * rows for a person), "views" (a thread's evidence views). */
export function databaseRows<T>(kind: "chunk" | "audit" | "views", argument: string): T[] {
  const out = execFileSync(process.env.PYTHON ?? "python", [path.join(__dirname, "evidence.py"), kind, stack().dsn, argument], {
    cwd: REPO_ROOT,
    encoding: "utf-8",
  });
  return JSON.parse(out);
}

/** The serious and critical WCAG 2.2 A/AA violations axe-core finds on the page as it is now. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })).violations;
  }, WCAG_TAGS);
  return violations
    .filter((v) => v.impact === "critical" || v.impact === "serious")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** The current page's id of the thread it shows (localStorage). */
export async function currentThread(page: Page): Promise<string> {
  return page.evaluate(() => localStorage.getItem("negentropy.thread") ?? "");
}

/** Chunks of a corpus written by a chat save (metadata captured_by) that contain ``marker``. */
export function capturedRows(corpusId: string, marker: string): { content: string; metadata: Record<string, unknown> }[] {
  const out = execFileSync(process.env.PYTHON ?? "python", [path.join(__dirname, "rows.py"), stack().dsn, corpusId, marker], {
    cwd: REPO_ROOT,
    encoding: "utf-8",
  });
  return JSON.parse(out);
}
