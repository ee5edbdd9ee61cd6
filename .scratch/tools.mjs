import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
const { connect, toolListTokens } = await import('/work/wt/tokens/dist/bench/tokens.js');
const { client, close } = await connect(process.argv[2]);
const { tools } = await client.listTools();
for (const t of tools) console.log(t.name, countTokens(t.description), countTokens(JSON.stringify(t.inputSchema)), countTokens(JSON.stringify({name:t.name,title:t.title,description:t.description,inputSchema:t.inputSchema})));
console.log('total', toolListTokens(tools));
if (process.argv[3]) console.log(JSON.stringify(tools.find(t=>t.name===process.argv[3]).inputSchema));
await close();
