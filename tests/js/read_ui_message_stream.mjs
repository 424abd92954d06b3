// The AI SDK's own client reads a UI message stream: what useChat does with a response.
//
//   node read_ui_message_stream.mjs NODE_MODULES FILE...    each file: the bytes of one response
//   node read_ui_message_stream.mjs NODE_MODULES --url URL  one POST to a running endpoint
//
// The `ai` package's DefaultChatTransport (the transport useChat uses) sends the request -- through a
// fetch that answers with the file's bytes, a few bytes per read, or the real fetch for --url -- and
// parses the response with the package's own SSE parser and chunk schemas; readUIMessageStream builds
// the message from the chunks.  Prints one JSON line per response: the final message, the chunks'
// types and the finish reason, and every error the reader reported.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...args] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(join(modules, "ai", "package.json"), "utf8"));
const ai = await import(pathToFileURL(join(modules, "ai", manifest.exports["."].import)).href);

const QUESTION = { id: "u1", role: "user", parts: [{ type: "text", text: "Plan my Saturday" }] };
const HEADERS = { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" };

// The file's bytes in reads of 1 to 13 bytes: the SSE parser sees lines and characters cut anywhere.
function answer(bytes) {
  let offset = 0;
  let size = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      size = (size % 13) + 1;
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
  return async () => new Response(body, { status: 200, headers: HEADERS });
}

async function read(api, fetchImpl) {
  const transport = new ai.DefaultChatTransport({ api, fetch: fetchImpl });
  const errors = [];
  const chunks = [];
  let finishReason = null;
  let message = null;
  try {
    const stream = await transport.sendMessages({
      chatId: "chat",
      messages: [QUESTION],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const [forMessage, forChunks] = stream.tee();
    const seen = (async () => {
      for await (const chunk of forChunks) {
        chunks.push(chunk.type);
        if (chunk.type === "finish") finishReason = chunk.finishReason ?? null;
      }
    })();
    const onError = (error) => errors.push(String(error?.message ?? error));
    for await (const snapshot of ai.readUIMessageStream({ stream: forMessage, onError })) {
      message = snapshot;
    }
    await seen;
  } catch (error) {
    errors.push(String(error?.message ?? error));
  }
  return { message, chunks, finishReason, errors };
}

if (args[0] === "--url") {
  console.log(JSON.stringify(await read(args[1], undefined)));
} else {
  for (const file of args) {
    console.log(JSON.stringify(await read("http://local.test/api/chat", answer(readFileSync(file)))));
  }
}
