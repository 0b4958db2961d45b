"""assay for coding agents: the MCP server (`assay mcp`) and the compact typed answers its tools
give. The tools call the same `assay.api` functions as the CLI, so an agent gets the CLI's
verdicts."""
