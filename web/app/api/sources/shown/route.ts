import { forward } from "@/lib/backend";

export const dynamic = "force-dynamic";

// The evidence an answer showed, for the click-through.
export async function POST(request: Request): Promise<Response> {
  return forward("/sources/shown", {
    method: "POST",
    body: await request.text(),
    headers: { "content-type": "application/json" },
  });
}
