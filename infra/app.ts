/**
 * The CDK app (`cdk.json`): `npx cdk synth` / `npx cdk deploy -c stage=dev|prod`. Environment-agnostic
 * (no account or region lookups), so synthesis runs offline; `cdk deploy` takes both from the AWS
 * profile. The AwsSolutions checks of cdk-nag run on every synthesis as a policy validation plugin:
 * an unacknowledged finding fails it (acknowledgements sit next to their resources, with reasons).
 *
 * Context (`-c key=value`), read by infra/stage.ts (docs/operations.md): `stage` (dev by default),
 * `stackName` (default SprintTicketing-<stage>), throttles, `authorizerConcurrency`, `waf`,
 * `domainName` + `certificateArn`, `alarmEmail`, `alarmTopicArn`.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { routes } from '../lib/routes.ts';
import { ServiceStack } from './stack.ts';
import { stageConfig } from './stage.ts';

const app = new App();
const context = (key: string): string | undefined => {
  const value = app.node.tryGetContext(key) as unknown;
  return value === undefined ? undefined : String(value);
};
const config = stageConfig(context);

new ServiceStack(app, context('stackName') ?? `SprintTicketing-${config.stage}`, {
  description: `Sprint Ticketing Service (${config.stage}): REST API on Lambda and DynamoDB`,
  routes,
  config,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));

app.synth();
