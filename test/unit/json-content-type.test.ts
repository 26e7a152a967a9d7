import { describe, expect, it } from 'vitest';
import { charsetRefusal, declaredCharset, jsonContentTypeRefusal } from '../../lib/http/json-content-type.ts';

describe('the Content-Type of a JSON body', () => {
  it('is JSON, with no charset or charset=utf-8 in any case, quoted or not', () => {
    for (const ok of [
      'application/json',
      'Application/JSON',
      'application/vnd.api+json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'application/json ; foo=bar; Charset = utf-8',
    ]) {
      expect(jsonContentTypeRefusal(ok), ok).toBeUndefined();
    }
  });

  it('is refused when it is not JSON', () => {
    for (const bad of ['', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'text/json']) {
      expect(jsonContentTypeRefusal(bad), bad).toBe('Content-Type must be application/json');
    }
  });

  it('is refused, naming the accepted charset and the one given, when it declares another charset', () => {
    for (const [contentType, charset] of [
      ['application/json; charset=iso-8859-1', 'iso-8859-1'],
      ['application/json; charset="ISO-8859-1"', 'ISO-8859-1'],
      ['application/json;charset=utf-16', 'utf-16'],
      ['application/json; charset=utf8', 'utf8'],
      ['application/json; charset=', ''],
    ]) {
      const message = `Content-Type charset must be utf-8 (got '${charset}'): send the body in UTF-8, with charset=utf-8 or no charset`;
      expect(jsonContentTypeRefusal(contentType!), contentType).toBe(message);
      expect(charsetRefusal(contentType!), contentType).toBe(message);
    }
  });

  it('reads the charset parameter whatever its place, and only that parameter', () => {
    expect(declaredCharset('application/json')).toBeUndefined();
    expect(declaredCharset('application/json; format=charset')).toBeUndefined();
    expect(declaredCharset('application/json; x-charset=latin1')).toBeUndefined();
    expect(declaredCharset('application/json; a=b; CHARSET=Latin1; c=d')).toBe('Latin1');
    expect(charsetRefusal('text/plain')).toBeUndefined();
  });
});
