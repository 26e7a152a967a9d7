import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  PolicyDocument,
  Role,
  ServicePrincipal,
  type AddToPrincipalPolicyResult,
  type PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type Construct } from 'constructs';
import { posix, resolve } from 'node:path';
import {
  aliasFor,
  type BundledFile,
  bundling,
  functionFiles,
  runtimeEnvironment,
  splitBuildArgs,
  splitEntries,
} from '../bundling.ts';
import { repoRoot } from '../paths.ts';

export interface ServiceFunctionProps {
  /** Handler module relative to the repository root; it exports `handler`. */
  entry: string;
  /** Environment beside the shared one (TABLE_NAME...). */
  environment?: Record<string, string>;
  description?: string;
  timeout?: Duration;
  memorySize?: number;
  /** Retention of the function's log group, and whether it outlives the stack. */
  logs: { retention: RetentionDays; removalPolicy: RemovalPolicy };
  /** A fixed name (a function that invokes itself names itself in its grant); undefined: CloudFormation's. */
  functionName?: string;
  /** Concurrency reserved for (and capping) this function; undefined: the account's shared pool. */
  reservedConcurrentExecutions?: number;
}

/**
 * A Lambda function with the project's defaults: Node.js 24 on arm64, one minified ES module
 * bundle per handler built by the locally installed esbuild (never Docker) with the AWS SDK inside,
 * source maps, and a log group of its own with the stage's retention.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, props.logs);
    // A role of its own that may write to its own log group only (AWS's basic execution policy
    // would let it create and write any log group of the account).
    const role = new InlinePolicyRole(scope, `${id}Role`);
    logGroup.grantWrite(role);
    super(scope, id, {
      role,
      entry: resolve(repoRoot, props.entry),
      handler: 'handler',
      description: props.description ?? props.entry,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      // Enough CPU for a short cold start; Lambda's CPU share grows with memory.
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.functionName === undefined ? {} : { functionName: props.functionName }),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      projectRoot: repoRoot,
      depsLockFilePath: resolve(repoRoot, 'package-lock.json'),
      logGroup,
      // Powertools writes JSON already; JSON format also makes Lambda's own lines structured.
      loggingFormat: LoggingFormat.JSON,
      environment: { ...runtimeEnvironment, ...props.environment },
      awsSdkConnectionReuse: false,
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: bundling.target,
        minify: bundling.minify,
        sourceMap: bundling.sourcemap,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: bundling.sourcesContent,
        mainFields: [...bundling.mainFields],
        banner: bundling.banner,
        inject: bundling.inject.map((file) => resolve(repoRoot, file)),
        bundleAwsSDK: true,
        externalModules: [...bundling.external],
        esbuildArgs: {
          '--alias': Object.entries(aliasFor(props.entry)).map(([from, to]) => `${from}=${resolve(repoRoot, to)}`),
        },
        ...afterBundlingHooks(props.entry, functionFiles[props.entry] ?? []),
      },
    });
  }
}

/**
 * A function's role whose statements are its own inline policy (the role's `Policies`) rather than
 * a separate AWS::IAM::Policy: the same grants, one CloudFormation resource per function fewer, so
 * that the stack stays under CloudFormation's 500 resources as routes are added.
 */
class InlinePolicyRole extends Role {
  private readonly statements: PolicyDocument;

  constructor(scope: Construct, id: string) {
    const statements = new PolicyDocument();
    super(scope, id, { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), inlinePolicies: { access: statements } });
    this.statements = statements;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.statements.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Bundling hooks that run in a shell on the machine that synthesizes (local bundling, never Docker)
 * after esbuild ran; nothing for a function that needs none. A split bundle (infra/bundling.ts:
 * `splitEntries`) is built again in place of the one file esbuild wrote, with code splitting, which
 * `NodejsFunction`'s own command line (`--outfile`) cannot do. Then the function's run-time files
 * (infra/bundling.ts: functionFiles) are copied into its bundle folder.
 */
function afterBundlingHooks(entry: string, files: BundledFile[]) {
  const split = splitEntries.includes(entry);
  if (files.length === 0 && !split) return {};
  const esbuild = resolve(repoRoot, 'node_modules/.bin/esbuild');
  return {
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir: string, outputDir: string) => [
        ...(split
          ? [
              `rm -f ${shellQuote(resolve(outputDir, `index${bundling.outExtension}`))} ${shellQuote(resolve(outputDir, `index${bundling.outExtension}.map`))}`,
              [esbuild, ...splitBuildArgs(entry, inputDir, outputDir)].map(shellQuote).join(' '),
            ]
          : []),
        ...[...new Set(files.map((f) => posix.dirname(f.to)))].map((dir) => `mkdir -p ${shellQuote(resolve(outputDir, dir))}`),
        ...files.map((f) => `cp ${shellQuote(resolve(inputDir, f.from))} ${shellQuote(resolve(outputDir, f.to))}`),
      ],
    },
  };
}
