// a probe with a syntax error on line 3
const ran = true;
console.log(JSON.stringify({ ran: }));
