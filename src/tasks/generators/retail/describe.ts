/**
 * How a customer names things in a generated scenario: items, option changes, payment methods, addresses. Second person
 * ("your Visa card"), as τ² scenarios are written; the opening message turns it into first person.
 */
import type { Address, OrderItem, PaymentMethod, User } from "../../../envs";

/** "the Water Bottle (1000ml, glass, blue)". */
export function describeItem(item: Pick<OrderItem, "name" | "options">): string {
  const values = Object.values(item.options);
  return values.length > 0 ? `the ${item.name} (${values.join(", ")})` : `the ${item.name}`;
}

/** The options that differ between two variants: "color purple and size XL". */
export function describeChange(
  from: Record<string, string>,
  to: Record<string, string>,
): { from: string; to: string } {
  const keys = Object.keys(to).filter((key) => from[key] !== to[key]);
  const phrase = (options: Record<string, string>): string =>
    joinAnd(keys.map((key) => `${key} ${options[key] ?? "none"}`));
  return { from: phrase(from), to: phrase(to) };
}

export function describePayment(method: PaymentMethod): string {
  switch (method.source) {
    case "credit_card":
      return `your ${capitalise(method.brand)} credit card ending in ${method.last_four}`;
    case "paypal":
      return "your PayPal account";
    case "gift_card":
      return "your gift card";
  }
}

export function describeAddress(address: Address): string {
  const street = address.address2 ? `${address.address1}, ${address.address2}` : address.address1;
  return `${street}, ${address.city}, ${address.state} ${address.zip}, ${address.country}`;
}

export function fullName(user: User): string {
  return `${user.name.first_name} ${user.name.last_name}`;
}

export function joinAnd(parts: readonly string[]): string {
  if (parts.length <= 1) return parts[0] ?? "";
  return `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}
