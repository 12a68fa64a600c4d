import { forward, forwardJson } from "@/lib/backend";

export const dynamic = "force-dynamic";

interface Params {
  params: Promise<{ id: string }>;
}

// Rename one of the person's conversations ({"title": ...}).
export async function PATCH(request: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return forwardJson(`/threads/${encodeURIComponent(id)}`, request);
}

// Delete one of the person's conversations with its messages.
export async function DELETE(_request: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  return forward(`/threads/${encodeURIComponent(id)}`, { method: "DELETE" });
}
