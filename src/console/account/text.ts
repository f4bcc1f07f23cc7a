import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../accounts/accounts.ts';
import type { Lang, Messages } from '../i18n.ts';

/** The texts of the account area's forms: sign-up and the password change. */

/** The longest name of an account. */
export const MAX_NAME = 100;

type Key =
  | 'emailInvalid'
  | 'emailTaken'
  | 'passwordLength'
  | 'nameLength'
  | 'invitationInvalid'
  | 'invitationOther'
  | 'currentWrong'
  | 'changed'
  | 'tooMany'
  | 'tooManySignups'
  | 'malformed'
  | 'csrf';

export const accountText: Messages<Key> = {
  en: {
    emailInvalid: 'Enter an e-mail address such as name@example.com (at most 254 characters).',
    emailTaken: 'An account with this e-mail address exists already. Sign in instead.',
    passwordLength: `The password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`,
    nameLength: `The name must be at most ${MAX_NAME} printable characters.`,
    invitationInvalid:
      'This invitation link is not valid: it was used, has expired or is mistyped. Ask for a new one.',
    invitationOther: 'This invitation is for another e-mail address.',
    currentWrong: 'The current password is wrong.',
    changed: 'Your password was changed. Your other signed-in browsers were signed out.',
    tooMany: 'Too many attempts with a wrong password. Try again later.',
    tooManySignups: 'Too many accounts were created from your address or on this service just now.',
    malformed: 'The form was malformed.',
    csrf: 'The form expired or was not sent from this site. Go back, reload the page and try again.',
  },
  ja: {
    emailInvalid: 'name@example.com のようなメールアドレスを入力してください（254文字以内）。',
    emailTaken: 'このメールアドレスのアカウントは既にあります。サインインしてください。',
    passwordLength: `パスワードは${MIN_PASSWORD_LENGTH}〜${MAX_PASSWORD_LENGTH}文字にしてください。`,
    nameLength: `名前は${MAX_NAME}文字以内の印字可能な文字にしてください。`,
    invitationInvalid:
      'この招待リンクは無効です（使用済み・期限切れ・入力誤り）。新しいリンクを依頼してください。',
    invitationOther: 'この招待は別のメールアドレス宛てです。',
    currentWrong: '現在のパスワードが違います。',
    changed: 'パスワードを変更しました。ほかのブラウザのサインインは終了しました。',
    tooMany: '誤ったパスワードでの試行が多すぎます。しばらくしてからお試しください。',
    tooManySignups: 'あなたのアドレスから、またはこのサービスで、短時間に作成されたアカウントが多すぎます。',
    malformed: 'フォームの形式が正しくありません。',
    csrf: 'フォームの有効期限が切れたか、このサイトから送信されていません。戻ってページを再読み込みし、もう一度お試しください。',
  },
};

/** When to try again, in the page's language. */
export function retryHint(lang: Lang, seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return lang === 'ja'
    ? `${minutes}分後にもう一度お試しください。`
    : `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}
