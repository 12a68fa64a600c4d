// Errors as one readable sentence: an HTTP error's JSON {"error"|"detail"} body, else the message itself.

export function readableError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const json = message.match(/\{[\s\S]*\}$/);
  if (json) {
    try {
      const body = JSON.parse(json[0]) as { error?: unknown; detail?: unknown };
      const detail = body.error ?? body.detail;
      if (detail) {
        const status = message.match(/HTTP (\d{3})/)?.[1];
        return `${typeof detail === "string" ? detail : JSON.stringify(detail)}${status ? ` (HTTP ${status})` : ""}`;
      }
    } catch {
      // not JSON after all: fall through to the message
    }
  }
  if (/failed to fetch|networkerror|load failed/i.test(message)) {
    return "The web app's server is not reachable. Is `negentropy web` still running?";
  }
  return message;
}
