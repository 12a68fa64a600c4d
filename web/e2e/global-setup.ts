// Starts e2e/stack.py (embedded PostgreSQL + demo corpora + three `negentropy web` instances) unless
// NEGENTROPY_E2E_STATE already names the state file of a running stack; stops it after the suite.
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "..", "..");
const READY_TIMEOUT_MS = 480_000;

export default async function globalSetup(): Promise<(() => Promise<void>) | void> {
  if (process.env.NEGENTROPY_E2E_STATE && existsSync(process.env.NEGENTROPY_E2E_STATE)) return;
  const stateFile = path.join(tmpdir(), `negentropy-e2e-${process.pid}.json`);
  rmSync(stateFile, { force: true });
  process.env.NEGENTROPY_E2E_STATE = stateFile;
  const python = process.env.PYTHON ?? "python";
  // NEGENTROPY_E2E_DEMO_DATA_DIR (CI, after `negentropy demo`): copy that demo database instead of ingesting again
  const demo = process.env.NEGENTROPY_E2E_DEMO_DATA_DIR;
  const args = [path.join(REPO_ROOT, "web", "e2e", "stack.py"), "--state-file", stateFile, ...(demo ? ["--demo-data-dir", demo] : [])];
  const stack = spawn(python, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, PYTHONPATH: REPO_ROOT, HF_HUB_OFFLINE: "1" },
    stdio: ["ignore", "inherit", "inherit"],
  });
  let exited: number | null = null;
  stack.on("exit", (code) => {
    exited = code ?? -1;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!existsSync(stateFile)) {
    if (exited !== null) throw new Error(`e2e/stack.py exited with code ${exited} before it was ready`);
    if (Date.now() > deadline) {
      stack.kill("SIGTERM");
      throw new Error(`e2e/stack.py was not ready within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return async () => {
    if (exited !== null) return;
    const done = new Promise((resolve) => stack.on("exit", resolve));
    stack.kill("SIGTERM");
    await done;
    rmSync(stateFile, { force: true });
  };
}
