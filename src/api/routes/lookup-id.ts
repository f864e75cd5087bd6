import { AppError } from '../../domain/errors';
import { isCanonicalPaymentId } from '../../domain/ids';

/** Anything but a canonical id is 400 InvalidId, before any query runs. */
export function requireCanonicalId(id: string): string {
  if (!isCanonicalPaymentId(id)) {
    throw new AppError('InvalidId', 'The id must be a canonical payment id (SV_…); internal row ids are not accepted.');
  }
  return id;
}
