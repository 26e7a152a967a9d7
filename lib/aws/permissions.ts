/**
 * The IAM actions a DynamoDB call needs, as AWS authorises it: a transaction is authorised item by
 * item (ConditionCheckItem, PutItem, UpdateItem, DeleteItem, GetItem), a Query on an index needs
 * `dynamodb:Query` on that index's ARN. The local runtime checks every call against the calling
 * function's grant (tools/local/permissions.ts), so a handler that needs more than the CDK stack
 * grants it fails locally as it would in AWS.
 */

/** One action on the table, or on one of its indexes (`index` set). */
export interface RequiredAction {
  action: string;
  index?: string;
}

const transactItemActions: Record<string, string> = {
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  Get: 'dynamodb:GetItem',
};

/** The actions a command (low-level name, e.g. `QueryCommand`) with this input needs. */
export function requiredActions(commandName: string, input: Record<string, unknown>): RequiredAction[] {
  const operation = commandName.replace(/Command$/, '');
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const items = Array.isArray(input.TransactItems) ? (input.TransactItems as Record<string, unknown>[]) : [];
    const actions = items.flatMap((item) =>
      Object.keys(item).flatMap((kind) => (transactItemActions[kind] ? [transactItemActions[kind]] : [])),
    );
    return [...new Set(actions)].map((action) => ({ action }));
  }
  const action = `dynamodb:${operation}`;
  if ((operation === 'Query' || operation === 'Scan') && typeof input.IndexName === 'string') {
    return [{ action, index: input.IndexName }];
  }
  return [{ action }];
}
