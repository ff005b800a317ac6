// exits 0, but its last line is not a JSON object
console.log("ran: true");
