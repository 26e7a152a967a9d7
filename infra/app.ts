/**
 * The CDK app (`cdk.json`): `npx cdk synth` / `npx cdk deploy`. Environment-agnostic (no account
 * or region lookups), so synthesis runs offline; `cdk deploy` takes both from the AWS profile.
 *
 * Context (`-c key=value`): `stackName` (default SprintTicketing), `tableRemovalPolicy`
 * (`retain` by default, `destroy` for a throwaway stack), `throttleRate`/`throttleBurst` (gateway
 * throttle per organisation).
 */
import { App, RemovalPolicy } from 'aws-cdk-lib';
import { routes } from '../lib/routes.ts';
import { ServiceStack } from './stack.ts';

const app = new App();
const context = (key: string): string | undefined => app.node.tryGetContext(key) as string | undefined;

new ServiceStack(app, context('stackName') ?? 'SprintTicketing', {
  description: 'Sprint Ticketing Service: REST API on Lambda and DynamoDB',
  routes,
  tableRemovalPolicy: context('tableRemovalPolicy') === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  throttle: {
    rateLimit: Number(context('throttleRate') ?? 100),
    burstLimit: Number(context('throttleBurst') ?? 200),
  },
});

app.synth();
