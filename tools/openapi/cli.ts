// npm run openapi (from the repository root): writes docs/openapi.yaml from the schemas (test/api/openapi.test.ts fails when it is stale).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openApiYaml } from './yaml'

writeFileSync(join(process.cwd(), 'docs/openapi.yaml'), openApiYaml())
