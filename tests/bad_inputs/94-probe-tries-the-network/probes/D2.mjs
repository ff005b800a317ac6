// a probe must script the model, never call one
const reply = await fetch("https://example.org/");
console.log(JSON.stringify({ ran: reply.ok }));
