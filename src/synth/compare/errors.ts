/** The one error type compare throws: a stable code and a message for people. */
export type CompareErrorCode = 'COMPARE_INPUT' | 'COMPARE_LIMIT';

export class CompareError extends Error {
  readonly code: CompareErrorCode;

  constructor(code: CompareErrorCode, message: string) {
    super(message);
    this.name = 'CompareError';
    this.code = code;
  }
}
